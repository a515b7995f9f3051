//! Ids for imported records. The original product keys records by Firebase
//! push ids (`-Nabc…`) or by the sign-in service's uid; Wayfare ids are
//! UUIDs. Each original key becomes a name-based UUID (version 5) of a fixed
//! Wayfare namespace, the node and the key, so the same record always gets
//! the same id: references between records hold, and importing the same
//! export again updates what the first import wrote instead of adding to it.

use sha1::{Digest, Sha1};
use uuid::{Builder, Uuid};

/// The namespace of ids made from the original product's keys (a v4 UUID
/// picked once; changing it would give every imported record a new id).
pub const NAMESPACE: Uuid = Uuid::from_u128(0x6d1c_5a0e_3f4b_4c8e_9a27_51e0_b3c4_d2f1);

/// The version 5 UUID of `name` in `namespace` (RFC 9562 §5.5).
pub fn uuid_v5(namespace: Uuid, name: &[u8]) -> Uuid {
    let mut hasher = Sha1::new();
    hasher.update(namespace.as_bytes());
    hasher.update(name);
    let digest = hasher.finalize();
    let mut bytes = [0u8; 16];
    bytes.copy_from_slice(&digest[..16]);
    Builder::from_sha1_bytes(bytes).into_uuid()
}

/// The id of the record at `node/key` of the original database, e.g.
/// `original_id("users", "8xZ…")`.
pub fn original_id(node: &str, key: &str) -> Uuid {
    let mut name = Vec::with_capacity(node.len() + key.len() + 1);
    name.extend_from_slice(node.as_bytes());
    name.push(b'/');
    name.extend_from_slice(key.as_bytes());
    uuid_v5(NAMESPACE, &name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_5_matches_the_rfc_example() {
        // RFC 9562 appendix A.4: "www.example.com" in the DNS namespace.
        let dns = Uuid::parse_str("6ba7b810-9dad-11d1-80b4-00c04fd430c8").unwrap();
        assert_eq!(uuid_v5(dns, b"www.example.com").to_string(), "2ed6657d-e927-568b-95e1-2665a8aea6a2");
    }

    #[test]
    fn the_same_key_always_gets_the_same_id_and_nodes_keep_keys_apart() {
        let rider = original_id("users", "-Nabc");
        assert_eq!(rider, original_id("users", "-Nabc"));
        assert_eq!(rider.get_version_num(), 5);
        assert_ne!(rider, original_id("bookings", "-Nabc"), "a booking and a user may share a key");
        assert_ne!(rider, original_id("users", "-Nabd"));
        // The separator keeps "a/bc" and "ab/c" apart.
        assert_ne!(original_id("a", "bc"), original_id("ab", "c"));
    }
}
