//! The OpenID providers' signing keys, read once and kept: each JSON Web Key
//! Set by its URL for [`KEYS_TTL_MS`], then read again. A token naming a key
//! (`kid`) the kept set does not have makes one more read at once, since
//! that is how a provider's key rotation first shows; a token that still
//! names no key after it is refused.
//!
//! Times are the server's clock (`AppState::now`), so tests move them.
//! Nothing here knows the providers or the routes.

use crate::auth::oauth::jwt::{self, Jwks, JwtError};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use wayfare_engine::Millis;

/// How long a key set is kept before it is read again.
pub const KEYS_TTL_MS: Millis = 60 * 60_000;

#[derive(Debug, thiserror::Error)]
pub enum KeysError {
    #[error("the key set at {url}: {reason}")]
    Fetch { url: String, reason: String },
    #[error(transparent)]
    Token(#[from] JwtError),
}

#[derive(Clone)]
struct Kept {
    keys: Arc<Jwks>,
    read_at: Millis,
}

/// The key sets read so far, by URL.
#[derive(Default)]
pub struct KeyCache {
    sets: Mutex<HashMap<String, Kept>>,
}

impl KeyCache {
    /// The payload of `token` once its RS256 signature verifies with a key
    /// of the set at `url` (kept, or read now; see the module's doc).
    pub async fn verify(
        &self,
        http: &reqwest::Client,
        url: &str,
        token: &str,
        now: Millis,
    ) -> Result<Vec<u8>, KeysError> {
        let (keys, just_read) = match self.kept(url, now) {
            Some(keys) => (keys, false),
            None => (self.read(http, url, now).await?, true),
        };
        match jwt::verify_rs256(token, &keys) {
            Err(JwtError::NoKey) if !just_read => {
                let keys = self.read(http, url, now).await?;
                Ok(jwt::verify_rs256(token, &keys)?)
            }
            verified => Ok(verified?),
        }
    }

    fn kept(&self, url: &str, now: Millis) -> Option<Arc<Jwks>> {
        let sets = self.sets.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        sets.get(url).filter(|kept| now.saturating_sub(kept.read_at) < KEYS_TTL_MS).map(|kept| kept.keys.clone())
    }

    /// Reads the set at `url` and keeps it. Two sign-ins that find nothing
    /// kept may both read; the later one's set is kept, which is as good.
    async fn read(&self, http: &reqwest::Client, url: &str, now: Millis) -> Result<Arc<Jwks>, KeysError> {
        let failed = |reason: String| KeysError::Fetch { url: url.to_string(), reason };
        let response = http
            .get(url)
            .header(reqwest::header::ACCEPT, "application/json")
            .send()
            .await
            .map_err(|error| failed(error.to_string()))?;
        if !response.status().is_success() {
            return Err(failed(response.status().to_string()));
        }
        let body = response.bytes().await.map_err(|error| failed(error.to_string()))?;
        let keys: Jwks = serde_json::from_slice(&body).map_err(|error| failed(error.to_string()))?;
        let keys = Arc::new(keys);
        let mut sets = self.sets.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        sets.insert(url.to_string(), Kept { keys: keys.clone(), read_at: now });
        tracing::debug!(url, keys = keys.keys.len(), "read a provider's signing keys");
        Ok(keys)
    }
}
