//! Web Push (RFC 8030) for the web app: each message encrypted for its
//! subscription (RFC 8291, `aes128gcm`) and signed for the push service with
//! the server's VAPID key (RFC 8292). The VAPID key pair is generated at
//! first start and kept in the data directory, so subscriptions made by
//! browsers stay valid across restarts. Built on `ring` (already in the
//! tree through rustls), so nothing new is downloaded.
//!
//! A device's push token is its subscription as the browser gives it:
//! `{"endpoint": "https://…", "keys": {"p256dh": "…", "auth": "…"}}`.

use super::push::{PushMessage, PushReport, PushSender};
use async_trait::async_trait;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use ring::rand::{SecureRandom, SystemRandom};
use ring::signature::{ECDSA_P256_SHA256_FIXED_SIGNING, EcdsaKeyPair, KeyPair};
use ring::{aead, agreement, hkdf};
use serde::Deserialize;
use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// How long a push service keeps a message for an offline device.
const TTL_SECS: u64 = 24 * 60 * 60;
/// How long a VAPID signature is valid (at most 24 h by RFC 8292).
const JWT_SECS: u64 = 12 * 60 * 60;
/// The record size announced in the `aes128gcm` header (one record).
const RECORD_SIZE: u32 = 4096;

/// The server's VAPID key pair (ECDSA P-256).
pub struct VapidKeys {
    pair: EcdsaKeyPair,
}

impl VapidKeys {
    pub fn generate() -> anyhow::Result<(VapidKeys, Vec<u8>)> {
        let rng = SystemRandom::new();
        let pkcs8 = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &rng)
            .map_err(|_| anyhow::anyhow!("VAPID key pair not generated"))?;
        let keys = VapidKeys::from_pkcs8(pkcs8.as_ref())?;
        Ok((keys, pkcs8.as_ref().to_vec()))
    }

    pub fn from_pkcs8(pkcs8: &[u8]) -> anyhow::Result<VapidKeys> {
        let pair = EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, pkcs8, &SystemRandom::new())
            .map_err(|error| anyhow::anyhow!("the VAPID private key is not a P-256 PKCS#8 key: {error}"))?;
        Ok(VapidKeys { pair })
    }

    /// Reads the key pair kept at `path` (base64url PKCS#8), or generates one
    /// and keeps it there, readable by the owner only.
    pub fn load_or_create(path: &Path) -> anyhow::Result<VapidKeys> {
        if path.exists() {
            let text = std::fs::read_to_string(path)?;
            let pkcs8 = URL_SAFE_NO_PAD
                .decode(text.trim())
                .map_err(|error| anyhow::anyhow!("{} is not base64url: {error}", path.display()))?;
            return VapidKeys::from_pkcs8(&pkcs8);
        }
        let (keys, pkcs8) = VapidKeys::generate()?;
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        write_private(path, &URL_SAFE_NO_PAD.encode(pkcs8))?;
        tracing::info!(path = %path.display(), "web push VAPID key pair generated");
        Ok(keys)
    }

    /// The public key as browsers want it for `applicationServerKey`:
    /// the uncompressed point, base64url.
    pub fn public_key_base64(&self) -> String {
        URL_SAFE_NO_PAD.encode(self.pair.public_key().as_ref())
    }

    /// `vapid t=<JWT>, k=<public key>` for a push service's origin.
    pub fn authorization(&self, audience: &str, subject: &str, now_secs: u64) -> anyhow::Result<String> {
        let header = URL_SAFE_NO_PAD.encode(br#"{"typ":"JWT","alg":"ES256"}"#);
        let claims = serde_json::json!({ "aud": audience, "exp": now_secs + JWT_SECS, "sub": subject });
        let claims = URL_SAFE_NO_PAD.encode(serde_json::to_vec(&claims)?);
        let signing_input = format!("{header}.{claims}");
        let signature = self
            .pair
            .sign(&SystemRandom::new(), signing_input.as_bytes())
            .map_err(|_| anyhow::anyhow!("VAPID signature failed"))?;
        let token = format!("{signing_input}.{}", URL_SAFE_NO_PAD.encode(signature.as_ref()));
        Ok(format!("vapid t={token}, k={}", self.public_key_base64()))
    }
}

#[cfg(unix)]
fn write_private(path: &Path, text: &str) -> std::io::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let mut file = std::fs::OpenOptions::new().write(true).create_new(true).mode(0o600).open(path)?;
    file.write_all(text.as_bytes())
}

#[cfg(not(unix))]
fn write_private(path: &Path, text: &str) -> std::io::Result<()> {
    std::fs::write(path, text)
}

/// A browser's push subscription.
#[derive(Debug, Clone, Deserialize)]
pub struct Subscription {
    pub endpoint: String,
    pub keys: SubscriptionKeys,
}

#[derive(Debug, Clone, Deserialize)]
pub struct SubscriptionKeys {
    pub p256dh: String,
    pub auth: String,
}

impl Subscription {
    pub fn parse(token: &str) -> Option<Subscription> {
        serde_json::from_str(token).ok()
    }
}

/// HKDF output length.
struct Len(usize);

impl hkdf::KeyType for Len {
    fn len(&self) -> usize {
        self.0
    }
}

fn hkdf_expand(prk: &hkdf::Prk, info: &[&[u8]], length: usize) -> anyhow::Result<Vec<u8>> {
    let mut out = vec![0u8; length];
    prk.expand(info, Len(length))
        .and_then(|okm| okm.fill(&mut out))
        .map_err(|_| anyhow::anyhow!("hkdf expand failed"))?;
    Ok(out)
}

/// The content-encryption key and nonce of RFC 8291 §3.3–3.4, from the ECDH
/// secret, the subscription's auth secret, both public keys and the salt.
pub fn derive_key_and_nonce(
    ecdh_secret: &[u8],
    auth_secret: &[u8],
    receiver_public: &[u8],
    sender_public: &[u8],
    salt: &[u8],
) -> anyhow::Result<(Vec<u8>, Vec<u8>)> {
    let prk_key = hkdf::Salt::new(hkdf::HKDF_SHA256, auth_secret).extract(ecdh_secret);
    let ikm = hkdf_expand(&prk_key, &[b"WebPush: info\0", receiver_public, sender_public], 32)?;
    let prk = hkdf::Salt::new(hkdf::HKDF_SHA256, salt).extract(&ikm);
    let key = hkdf_expand(&prk, &[b"Content-Encoding: aes128gcm\0"], 16)?;
    let nonce = hkdf_expand(&prk, &[b"Content-Encoding: nonce\0"], 12)?;
    Ok((key, nonce))
}

/// Encrypts `payload` for a subscription: the `aes128gcm` body (salt, record
/// size, the sender's public key, one record ending with the 0x02 delimiter).
pub fn encrypt(payload: &[u8], subscription: &Subscription) -> anyhow::Result<Vec<u8>> {
    let receiver_public = URL_SAFE_NO_PAD.decode(subscription.keys.p256dh.trim_end_matches('='))?;
    let auth_secret = URL_SAFE_NO_PAD.decode(subscription.keys.auth.trim_end_matches('='))?;
    let rng = SystemRandom::new();
    let sender_private = agreement::EphemeralPrivateKey::generate(&agreement::ECDH_P256, &rng)
        .map_err(|_| anyhow::anyhow!("no ephemeral key"))?;
    let sender_public = sender_private.compute_public_key().map_err(|_| anyhow::anyhow!("no public key"))?;
    let ecdh_secret = agreement::agree_ephemeral(
        sender_private,
        &agreement::UnparsedPublicKey::new(&agreement::ECDH_P256, &receiver_public),
        |secret| secret.to_vec(),
    )
    .map_err(|_| anyhow::anyhow!("the subscription's p256dh is not a P-256 public key"))?;
    let mut salt = [0u8; 16];
    rng.fill(&mut salt).map_err(|_| anyhow::anyhow!("no random salt"))?;
    let (key, nonce) =
        derive_key_and_nonce(&ecdh_secret, &auth_secret, &receiver_public, sender_public.as_ref(), &salt)?;
    let key = aead::LessSafeKey::new(
        aead::UnboundKey::new(&aead::AES_128_GCM, &key).map_err(|_| anyhow::anyhow!("bad key"))?,
    );
    let nonce = aead::Nonce::try_assume_unique_for_key(&nonce).map_err(|_| anyhow::anyhow!("bad nonce"))?;
    let mut record = Vec::with_capacity(payload.len() + 1 + 16);
    record.extend_from_slice(payload);
    record.push(0x02);
    key.seal_in_place_append_tag(nonce, aead::Aad::empty(), &mut record)
        .map_err(|_| anyhow::anyhow!("encryption failed"))?;
    let mut body = Vec::with_capacity(16 + 4 + 1 + 65 + record.len());
    body.extend_from_slice(&salt);
    body.extend_from_slice(&RECORD_SIZE.to_be_bytes());
    body.push(sender_public.as_ref().len() as u8);
    body.extend_from_slice(sender_public.as_ref());
    body.extend_from_slice(&record);
    Ok(body)
}

pub struct WebPushSender {
    client: reqwest::Client,
    keys: VapidKeys,
    subject: String,
    /// Plain-http endpoints (tests, local push servers); real ones are https.
    allow_http: bool,
}

impl WebPushSender {
    pub fn new(keys: VapidKeys, subject: &str, allow_http: bool) -> Self {
        let client =
            reqwest::Client::builder().use_rustls_tls().timeout(Duration::from_secs(30)).build().unwrap_or_default();
        WebPushSender { client, keys, subject: subject.to_string(), allow_http }
    }

    fn endpoint_allowed(&self, endpoint: &str) -> bool {
        endpoint.starts_with("https://") || (self.allow_http && endpoint.starts_with("http://"))
    }

    /// The request for one message, ready to send.
    pub fn request(&self, message: &PushMessage) -> anyhow::Result<reqwest::Request> {
        let subscription =
            Subscription::parse(&message.token).ok_or_else(|| anyhow::anyhow!("not a push subscription"))?;
        let endpoint = reqwest::Url::parse(&subscription.endpoint)?;
        if !self.endpoint_allowed(endpoint.as_str()) {
            anyhow::bail!("push endpoint scheme not allowed");
        }
        let payload = serde_json::json!({ "title": message.title, "body": message.body, "data": message.data, "channel": message.channel });
        let body = encrypt(&serde_json::to_vec(&payload)?, &subscription)?;
        let now = SystemTime::now().duration_since(UNIX_EPOCH)?.as_secs();
        let authorization = self.keys.authorization(&endpoint.origin().ascii_serialization(), &self.subject, now)?;
        Ok(self
            .client
            .post(endpoint)
            .header(reqwest::header::AUTHORIZATION, authorization)
            .header(reqwest::header::CONTENT_ENCODING, "aes128gcm")
            .header(reqwest::header::CONTENT_TYPE, "application/octet-stream")
            .header("TTL", TTL_SECS.to_string())
            .header("Urgency", "high")
            .body(body)
            .build()?)
    }
}

#[async_trait]
impl PushSender for WebPushSender {
    fn name(&self) -> &'static str {
        "webpush"
    }

    fn accepts(&self, token: &str) -> bool {
        token.trim_start().starts_with('{')
            && Subscription::parse(token).is_some_and(|subscription| self.endpoint_allowed(&subscription.endpoint))
    }

    async fn send(&self, messages: &[PushMessage]) -> PushReport {
        let mut report = PushReport::default();
        for message in messages {
            let sent = match self.request(message) {
                Ok(request) => match self.client.execute(request).await {
                    Ok(response) if response.status().is_success() => true,
                    Ok(response) => {
                        // 404 and 410: the subscription is gone.
                        tracing::debug!(status = %response.status(), "web push refused");
                        false
                    }
                    Err(error) => {
                        tracing::debug!(%error, "web push service not reached");
                        false
                    }
                },
                Err(error) => {
                    tracing::debug!(%error, "web push message not built");
                    false
                }
            };
            if sent { report.sent += 1 } else { report.failed += 1 }
        }
        report
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderMap;
    use ring::signature::{ECDSA_P256_SHA256_FIXED, UnparsedPublicKey};
    use wayfare_engine::UserPlatform;

    #[test]
    fn the_key_pair_is_generated_once_and_kept_in_the_data_dir() {
        let directory = tempfile::tempdir().unwrap();
        let path = directory.path().join("keys").join("vapid_private_key");
        let first = VapidKeys::load_or_create(&path).unwrap();
        assert!(path.exists());
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            assert_eq!(
                std::fs::metadata(&path).unwrap().permissions().mode() & 0o777,
                0o600,
                "the private key is the owner's only"
            );
        }
        let again = VapidKeys::load_or_create(&path).unwrap();
        assert_eq!(
            first.public_key_base64(),
            again.public_key_base64(),
            "a restart keeps the key browsers subscribed with"
        );
        let public = URL_SAFE_NO_PAD.decode(first.public_key_base64()).unwrap();
        assert_eq!((public.len(), public[0]), (65, 0x04), "an uncompressed P-256 point");
        std::fs::write(&path, "not a key").unwrap();
        assert!(VapidKeys::load_or_create(&path).is_err(), "a broken key file is an error, not silently replaced");
    }

    /// A browser: its subscription keys, and what it needs to decrypt.
    struct Browser {
        private: agreement::EphemeralPrivateKey,
        public: Vec<u8>,
        auth: [u8; 16],
    }

    impl Browser {
        fn new() -> Browser {
            let rng = SystemRandom::new();
            let private = agreement::EphemeralPrivateKey::generate(&agreement::ECDH_P256, &rng).unwrap();
            let public = private.compute_public_key().unwrap().as_ref().to_vec();
            let mut auth = [0u8; 16];
            rng.fill(&mut auth).unwrap();
            Browser { private, public, auth }
        }

        fn token(&self, endpoint: &str) -> String {
            serde_json::json!({ "endpoint": endpoint, "keys": { "p256dh": URL_SAFE_NO_PAD.encode(&self.public), "auth": URL_SAFE_NO_PAD.encode(self.auth) } }).to_string()
        }

        /// Decrypts an `aes128gcm` body (RFC 8291) as the browser would.
        fn decrypt(self, body: &[u8]) -> Vec<u8> {
            let salt = &body[..16];
            assert_eq!(u32::from_be_bytes(body[16..20].try_into().unwrap()), RECORD_SIZE);
            let key_length = body[20] as usize;
            let sender_public = &body[21..21 + key_length];
            let mut record = body[21 + key_length..].to_vec();
            let secret = agreement::agree_ephemeral(
                self.private,
                &agreement::UnparsedPublicKey::new(&agreement::ECDH_P256, sender_public),
                |secret| secret.to_vec(),
            )
            .unwrap();
            let (key, nonce) = derive_key_and_nonce(&secret, &self.auth, &self.public, sender_public, salt).unwrap();
            let key = aead::LessSafeKey::new(aead::UnboundKey::new(&aead::AES_128_GCM, &key).unwrap());
            let plain = key
                .open_in_place(aead::Nonce::try_assume_unique_for_key(&nonce).unwrap(), aead::Aad::empty(), &mut record)
                .unwrap();
            assert_eq!(plain.last(), Some(&0x02), "the last record's delimiter");
            plain[..plain.len() - 1].to_vec()
        }
    }

    #[tokio::test]
    async fn a_message_is_encrypted_for_the_subscription_and_signed_with_the_vapid_key() {
        let (sender, mut received) = tokio::sync::mpsc::unbounded_channel();
        let service = axum::Router::new().route(
            "/push/{id}",
            axum::routing::post(move |headers: HeaderMap, body: axum::body::Bytes| {
                let sender = sender.clone();
                async move {
                    sender.send((headers, body.to_vec())).unwrap();
                    axum::http::StatusCode::CREATED
                }
            }),
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, service).await.unwrap() });

        let (keys, _) = VapidKeys::generate().unwrap();
        let vapid_public = URL_SAFE_NO_PAD.decode(keys.public_key_base64()).unwrap();
        let web_push = WebPushSender::new(keys, "mailto:ops@wayfare.example", true);
        let browser = Browser::new();
        let endpoint = format!("http://{address}/push/abc");
        let message = PushMessage {
            token: browser.token(&endpoint),
            platform: UserPlatform::Web,
            title: "Wayfare".into(),
            body: "Votre chauffeur est arrivé.".into(),
            data: serde_json::json!({ "screen": "BookedCab" }),
            channel: "bookings".into(),
        };
        assert!(web_push.accepts(&message.token));
        assert_eq!(web_push.send(std::slice::from_ref(&message)).await, PushReport { sent: 1, failed: 0 });
        let (headers, body) = received.recv().await.unwrap();
        assert_eq!(headers["content-encoding"], "aes128gcm");
        assert_eq!(headers["ttl"], TTL_SECS.to_string());
        // The VAPID authorization: a JWT for the push service's origin, signed by our key.
        let authorization = headers["authorization"].to_str().unwrap();
        let (token, key) = authorization.strip_prefix("vapid t=").unwrap().split_once(", k=").unwrap();
        assert_eq!(URL_SAFE_NO_PAD.decode(key).unwrap(), vapid_public);
        let (signing_input, signature) = token.rsplit_once('.').unwrap();
        UnparsedPublicKey::new(&ECDSA_P256_SHA256_FIXED, &vapid_public)
            .verify(signing_input.as_bytes(), &URL_SAFE_NO_PAD.decode(signature).unwrap())
            .expect("the JWT is signed with the VAPID key");
        let claims: serde_json::Value =
            serde_json::from_slice(&URL_SAFE_NO_PAD.decode(signing_input.split('.').nth(1).unwrap()).unwrap()).unwrap();
        assert_eq!(claims["aud"], format!("http://{address}"));
        assert_eq!(claims["sub"], "mailto:ops@wayfare.example");
        // Only the browser can read it.
        let payload: serde_json::Value = serde_json::from_slice(&browser.decrypt(&body)).unwrap();
        assert_eq!(payload["body"], "Votre chauffeur est arrivé.");
        assert_eq!(payload["data"]["screen"], "BookedCab");
    }

    #[test]
    fn plain_http_endpoints_and_other_tokens_are_refused_by_default() {
        let (keys, _) = VapidKeys::generate().unwrap();
        let web_push = WebPushSender::new(keys, "mailto:ops@wayfare.example", false);
        let browser = Browser::new();
        assert!(web_push.accepts(&browser.token("https://fcm.googleapis.com/fcm/send/abc")));
        assert!(!web_push.accepts(&browser.token("http://169.254.169.254/latest")));
        assert!(!web_push.accepts("ExponentPushToken[abc]"));
    }
}
