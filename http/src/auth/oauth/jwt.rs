//! ID tokens: a compact JWS signed with RS256 (what Google and Apple sign
//! with), verified against the provider's JSON Web Key Set with `ring`.
//! Only the signature is checked here; the claims are the engine's
//! (`wayfare_engine::social::check_id_token`).

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use ring::signature::{RSA_PKCS1_2048_8192_SHA256, RsaPublicKeyComponents};
use serde::Deserialize;

/// A provider's signing keys (RFC 7517), as its `jwks_uri` serves them.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct Jwks {
    pub keys: Vec<Jwk>,
}

/// One key; only RSA keys are used, the rest are skipped.
#[derive(Debug, Clone, Deserialize)]
pub struct Jwk {
    pub kty: String,
    #[serde(default)]
    pub kid: Option<String>,
    #[serde(default)]
    pub alg: Option<String>,
    /// The modulus, base64url.
    #[serde(default)]
    pub n: Option<String>,
    /// The public exponent, base64url.
    #[serde(default)]
    pub e: Option<String>,
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum JwtError {
    #[error("not a compact JWS")]
    Malformed,
    #[error("signed with {0}, not RS256")]
    Algorithm(String),
    #[error("no RSA key of the provider matches the token")]
    NoKey,
    #[error("the signature does not verify")]
    Signature,
}

#[derive(Deserialize)]
struct Header {
    alg: String,
    #[serde(default)]
    kid: Option<String>,
}

fn decode(part: &str) -> Result<Vec<u8>, JwtError> {
    URL_SAFE_NO_PAD.decode(part.trim_end_matches('=')).map_err(|_| JwtError::Malformed)
}

/// The payload of `token` once its RS256 signature verifies with the key
/// its header names (`kid`), or with any RSA key of the set when it names none.
pub fn verify_rs256(token: &str, jwks: &Jwks) -> Result<Vec<u8>, JwtError> {
    let mut parts = token.split('.');
    let (Some(header), Some(payload), Some(signature), None) = (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(JwtError::Malformed);
    };
    let header: Header = serde_json::from_slice(&decode(header)?).map_err(|_| JwtError::Malformed)?;
    // The algorithm is ours to choose, never the token's: `none` and HMAC
    // with the public key as secret are the classic forgeries.
    if header.alg != "RS256" {
        return Err(JwtError::Algorithm(header.alg));
    }
    let signature = decode(signature)?;
    let signed = &token[..header_and_payload_len(token)];
    let candidates = jwks.keys.iter().filter(|key| {
        key.kty == "RSA"
            && key.alg.as_deref().is_none_or(|alg| alg == "RS256")
            && header.kid.as_deref().is_none_or(|kid| key.kid.as_deref() == Some(kid))
    });
    let mut any_key = false;
    for key in candidates {
        let (Some(modulus), Some(exponent)) = (key.n.as_deref(), key.e.as_deref()) else { continue };
        let (Ok(modulus), Ok(exponent)) = (decode(modulus), decode(exponent)) else { continue };
        any_key = true;
        let public = RsaPublicKeyComponents { n: &modulus, e: &exponent };
        if public.verify(&RSA_PKCS1_2048_8192_SHA256, signed.as_bytes(), &signature).is_ok() {
            return decode(payload);
        }
    }
    Err(if any_key { JwtError::Signature } else { JwtError::NoKey })
}

/// The length of `header.payload`, the signed part.
fn header_and_payload_len(token: &str) -> usize {
    token.rfind('.').unwrap_or(token.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_that_are_not_rs256_jws_are_refused_before_any_key() {
        let jwks = Jwks::default();
        assert_eq!(verify_rs256("a.b", &jwks), Err(JwtError::Malformed));
        assert_eq!(verify_rs256("a.b.c.d", &jwks), Err(JwtError::Malformed));
        let none = format!("{}.{}.", URL_SAFE_NO_PAD.encode(br#"{"alg":"none"}"#), URL_SAFE_NO_PAD.encode(b"{}"));
        assert_eq!(verify_rs256(&none, &jwks), Err(JwtError::Algorithm("none".into())));
        let hmac = format!("{}.{}.c2ln", URL_SAFE_NO_PAD.encode(br#"{"alg":"HS256"}"#), URL_SAFE_NO_PAD.encode(b"{}"));
        assert_eq!(verify_rs256(&hmac, &jwks), Err(JwtError::Algorithm("HS256".into())));
        let rs256 = format!("{}.{}.c2ln", URL_SAFE_NO_PAD.encode(br#"{"alg":"RS256"}"#), URL_SAFE_NO_PAD.encode(b"{}"));
        assert_eq!(verify_rs256(&rs256, &jwks), Err(JwtError::NoKey));
    }
}
