//! Gateway secrets at rest: sealed with AES-256-GCM under the key of
//! `payments.secrets_key` before they reach the database, opened when a
//! gateway is called. The gateway and field names are the sealed value's
//! associated data, so a value copied onto another field does not open.

use base64::Engine as _;
use ring::aead::{AES_256_GCM, Aad, LessSafeKey, NONCE_LEN, Nonce, UnboundKey};
use ring::rand::{SecureRandom, SystemRandom};

/// Sealed values start with this (a later scheme gets another).
const PREFIX: &str = "v1:";

/// The key that seals gateway secrets.
pub struct SecretsKey(LessSafeKey);

impl std::fmt::Debug for SecretsKey {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str("SecretsKey(…)")
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SecretsError {
    #[error("payments.secrets_key must be 32 bytes written as 64 hexadecimal digits")]
    BadKey,
    #[error("a stored secret does not open with payments.secrets_key (another key, or altered)")]
    WontOpen,
}

fn context(gateway: &str, field: &str) -> String {
    format!("wayfare/payments/{gateway}/{field}")
}

impl SecretsKey {
    /// From 64 hex digits (`openssl rand -hex 32`).
    pub fn from_hex(text: &str) -> Result<SecretsKey, SecretsError> {
        let bytes = hex::decode(text.trim()).map_err(|_| SecretsError::BadKey)?;
        let key = UnboundKey::new(&AES_256_GCM, &bytes).map_err(|_| SecretsError::BadKey)?;
        Ok(SecretsKey(LessSafeKey::new(key)))
    }

    /// `v1:` and base64 of a fresh random nonce followed by the ciphertext and its tag.
    pub fn seal(&self, gateway: &str, field: &str, plain: &str) -> String {
        let mut nonce = [0u8; NONCE_LEN];
        SystemRandom::new().fill(&mut nonce).expect("the system's random source works");
        let mut sealed = plain.as_bytes().to_vec();
        self.0
            .seal_in_place_append_tag(
                Nonce::assume_unique_for_key(nonce),
                Aad::from(context(gateway, field).as_bytes()),
                &mut sealed,
            )
            .expect("AES-GCM seals any length a setting has");
        let mut out = nonce.to_vec();
        out.extend_from_slice(&sealed);
        format!("{PREFIX}{}", base64::engine::general_purpose::STANDARD_NO_PAD.encode(out))
    }

    pub fn open(&self, gateway: &str, field: &str, sealed: &str) -> Result<String, SecretsError> {
        let encoded = sealed.strip_prefix(PREFIX).ok_or(SecretsError::WontOpen)?;
        let mut bytes =
            base64::engine::general_purpose::STANDARD_NO_PAD.decode(encoded).map_err(|_| SecretsError::WontOpen)?;
        if bytes.len() < NONCE_LEN {
            return Err(SecretsError::WontOpen);
        }
        let mut ciphertext = bytes.split_off(NONCE_LEN);
        let nonce = Nonce::try_assume_unique_for_key(&bytes).map_err(|_| SecretsError::WontOpen)?;
        let plain = self
            .0
            .open_in_place(nonce, Aad::from(context(gateway, field).as_bytes()), &mut ciphertext)
            .map_err(|_| SecretsError::WontOpen)?;
        String::from_utf8(plain.to_vec()).map_err(|_| SecretsError::WontOpen)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &str = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";

    #[test]
    fn a_sealed_secret_opens_only_with_its_key_and_place() {
        let key = SecretsKey::from_hex(KEY).unwrap();
        let sealed = key.seal("razorpay", "KEY_SECRET", "s3cr3t");
        assert!(sealed.starts_with("v1:") && !sealed.contains("s3cr3t"));
        assert_ne!(sealed, key.seal("razorpay", "KEY_SECRET", "s3cr3t"), "a fresh nonce each time");
        assert_eq!(key.open("razorpay", "KEY_SECRET", &sealed).unwrap(), "s3cr3t");
        assert_eq!(key.open("razorpay", "KEY_ID", &sealed), Err(SecretsError::WontOpen), "another field");
        assert_eq!(key.open("paystack", "KEY_SECRET", &sealed), Err(SecretsError::WontOpen), "another gateway");
        let other = SecretsKey::from_hex(&KEY.replace("00", "ff")).unwrap();
        assert_eq!(other.open("razorpay", "KEY_SECRET", &sealed), Err(SecretsError::WontOpen));
        let mut altered = sealed.clone().into_bytes();
        let last = altered.len() - 2;
        altered[last] = if altered[last] == b'A' { b'B' } else { b'A' };
        assert_eq!(
            key.open("razorpay", "KEY_SECRET", std::str::from_utf8(&altered).unwrap()),
            Err(SecretsError::WontOpen)
        );
        assert_eq!(key.open("razorpay", "KEY_SECRET", "s3cr3t"), Err(SecretsError::WontOpen), "never stored in clear");
    }

    #[test]
    fn a_key_is_64_hex_digits() {
        assert!(SecretsKey::from_hex(KEY).is_ok());
        assert_eq!(SecretsKey::from_hex("abcd").unwrap_err(), SecretsError::BadKey);
        assert_eq!(SecretsKey::from_hex(&"zz".repeat(32)).unwrap_err(), SecretsError::BadKey);
    }
}
