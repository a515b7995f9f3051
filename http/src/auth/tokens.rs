//! Random tokens and their hashes.

use rand::RngCore;
use sha2::{Digest, Sha256};

/// A fresh session token: 32 random bytes, hex.
pub fn new_token() -> String {
    let mut bytes = [0u8; 32];
    rand::rng().fill_bytes(&mut bytes);
    hex::encode(bytes)
}

/// What is stored of a token or code: its SHA-256, hex.
pub fn hash(secret: &str) -> String {
    hex::encode(Sha256::digest(secret.as_bytes()))
}

/// A code's hash is bound to its contact, so one contact's code is never
/// another's.
pub fn code_hash(contact: &str, code: &str) -> String {
    hash(&format!("{contact}\u{0}{code}"))
}

/// Compares two hashes in constant time.
pub fn same(left: &str, right: &str) -> bool {
    left.len() == right.len() && left.bytes().zip(right.bytes()).fold(0u8, |acc, (a, b)| acc | (a ^ b)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_long_random_and_hashes_are_stable() {
        let first = new_token();
        assert_eq!(first.len(), 64);
        assert_ne!(first, new_token());
        assert_eq!(hash("abc"), hash("abc"));
        assert_ne!(code_hash("a@b.c", "123456"), code_hash("d@e.f", "123456"));
        assert!(same(&hash("x"), &hash("x")));
        assert!(!same(&hash("x"), &hash("y")));
    }
}
