//! Social sign-in (issue #37): Google and Apple through OpenID Connect,
//! Facebook through OAuth 2, each with PKCE (S256) and a single-use state.
//!
//! `/start` stores an attempt (state hash, PKCE verifier, nonce, return
//! path; 10 minutes) and sends the browser to the provider with the
//! attempt's id in a short-lived HttpOnly cookie, so that only the browser
//! that started a sign-in can finish it. `/callback` takes the attempt once,
//! exchanges the code with the verifier, reads who the person is (an ID token
//! whose RS256 signature is checked against the provider's keys, kept for an
//! hour by [`keys`], or Facebook's Graph API), picks the account by the
//! engine's rules (`wayfare_engine::social`) and starts a session as the
//! code sign-in does.

pub mod jwt;
pub mod keys;
pub mod routes;

use crate::config::OAuthProviderConfig;
use crate::state::AppState;
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde::Deserialize;
use sha2::{Digest, Sha256};
use wayfare_engine::Millis;
use wayfare_engine::social::{self, ClaimsError, IdTokenClaims, SocialIdentity, SocialProvider};
use wayfare_storage::OAuthAttempt;

/// How long a started sign-in may take to come back.
pub const ATTEMPT_TTL_MS: Millis = 10 * 60_000;

/// The cookie naming the browser's attempt; sent only to these routes.
pub const ATTEMPT_COOKIE: &str = "wayfare_oauth";
pub const ROUTES_PATH: &str = "/api/v1/auth/oauth";

/// Where a provider is reached, and what is asked of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoints {
    pub authorize: String,
    pub token: String,
    /// Facebook's Graph API `/me`, with the fields we read.
    pub userinfo: Option<String>,
    pub jwks: Option<String>,
    /// The `iss` values an ID token may carry.
    pub issuers: Vec<String>,
    pub scope: &'static str,
    /// Apple answers a sign-in that asks for the e-mail with a cross-site
    /// POST (`response_mode=form_post`), which a `SameSite=Lax` cookie does
    /// not come back with.
    pub form_post: bool,
}

/// The provider's own endpoints, each replaced by the configured one when set.
pub fn endpoints(provider: SocialProvider, config: &OAuthProviderConfig) -> Endpoints {
    let (authorize, token, userinfo, jwks, issuers, scope): (&str, &str, Option<&str>, Option<&str>, &[&str], _) =
        match provider {
            SocialProvider::Google => (
                "https://accounts.google.com/o/oauth2/v2/auth",
                "https://oauth2.googleapis.com/token",
                None,
                Some("https://www.googleapis.com/oauth2/v3/certs"),
                // Google documents both spellings.
                &["https://accounts.google.com", "accounts.google.com"],
                "openid email profile",
            ),
            SocialProvider::Apple => (
                "https://appleid.apple.com/auth/authorize",
                "https://appleid.apple.com/auth/token",
                None,
                Some("https://appleid.apple.com/auth/keys"),
                &["https://appleid.apple.com"],
                "openid email name",
            ),
            SocialProvider::Facebook => (
                "https://www.facebook.com/v19.0/dialog/oauth",
                "https://graph.facebook.com/v19.0/oauth/access_token",
                Some("https://graph.facebook.com/v19.0/me?fields=id,name,email,first_name,last_name"),
                None,
                &[],
                "email public_profile",
            ),
        };
    let chosen = |configured: &Option<String>, default: &str| {
        configured.clone().filter(|url| !url.is_empty()).unwrap_or_else(|| default.to_string())
    };
    let issuers = match config.issuer.as_deref().filter(|issuer| !issuer.is_empty()) {
        Some(issuer) => vec![issuer.to_string()],
        None => issuers.iter().map(|issuer| issuer.to_string()).collect(),
    };
    Endpoints {
        authorize: chosen(&config.authorize_url, authorize),
        token: chosen(&config.token_url, token),
        userinfo: userinfo.map(|default| chosen(&config.userinfo_url, default)),
        jwks: jwks.map(|default| chosen(&config.jwks_url, default)),
        issuers,
        scope,
        form_post: provider == SocialProvider::Apple,
    }
}

/// A provider people may sign in with now: switched on in the settings and
/// with its credentials configured.
#[derive(Debug, Clone)]
pub struct Client {
    pub provider: SocialProvider,
    pub client_id: String,
    pub client_secret: String,
    pub endpoints: Endpoints,
}

/// The provider, if people may sign in with it now.
pub fn client(state: &AppState, provider: SocialProvider) -> Option<Client> {
    let config = state.config.auth.oauth.provider(provider);
    if !config.configured() || !provider.switched_on(&state.runtime.catalog().settings) {
        return None;
    }
    Some(Client {
        provider,
        client_id: config.client_id.clone().unwrap_or_default(),
        client_secret: config.client_secret.clone().unwrap_or_default(),
        endpoints: endpoints(provider, config),
    })
}

/// The providers people may sign in with now, in a fixed order.
pub fn available(state: &AppState) -> Vec<SocialProvider> {
    SocialProvider::ALL.into_iter().filter(|provider| client(state, *provider).is_some()).collect()
}

/// The PKCE challenge of a verifier (RFC 7636 S256).
pub fn pkce_challenge(verifier: &str) -> String {
    URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()))
}

/// Why a sign-in coming back from a provider was refused (logged; the
/// person sees `login_error`).
#[derive(Debug, thiserror::Error)]
pub enum Refusal {
    #[error("no attempt cookie")]
    NoCookie,
    #[error("the callback carries no state or code")]
    Incomplete,
    #[error("the provider answered an error: {0}")]
    ProviderError(String),
    #[error("unknown, used or expired attempt, or another state")]
    NoAttempt,
    #[error("the attempt was started with another provider")]
    OtherProvider,
    #[error("the provider refused the code: {0}")]
    CodeRefused(String),
    #[error("the provider could not be reached: {0}")]
    Unreachable(String),
    #[error("the ID token: {0}")]
    Token(#[from] jwt::JwtError),
    #[error("the ID token's claims: {0}")]
    Claims(#[from] ClaimsError),
    #[error("the provider's answer: {0}")]
    BadAnswer(String),
}

impl From<keys::KeysError> for Refusal {
    fn from(error: keys::KeysError) -> Self {
        match error {
            keys::KeysError::Fetch { .. } => Refusal::BadAnswer(error.to_string()),
            keys::KeysError::Token(error) => Refusal::Token(error),
        }
    }
}

#[derive(Deserialize)]
struct TokenAnswer {
    #[serde(default)]
    access_token: Option<String>,
    #[serde(default)]
    id_token: Option<String>,
}

/// Facebook's `/me`.
#[derive(Deserialize)]
struct FacebookPerson {
    id: String,
    #[serde(default)]
    email: Option<String>,
    #[serde(default)]
    first_name: Option<String>,
    #[serde(default)]
    last_name: Option<String>,
}

impl Client {
    /// Exchanges the code at the token endpoint (client_secret_post, with
    /// the attempt's PKCE verifier) and reads who signed in; an ID token must
    /// carry the attempt's nonce and verify with the provider's keys as
    /// `keys` holds them.
    pub async fn identify(
        &self,
        http: &reqwest::Client,
        keys: &keys::KeyCache,
        code: &str,
        attempt: &OAuthAttempt,
        now: Millis,
    ) -> Result<SocialIdentity, Refusal> {
        let form = [
            ("grant_type", "authorization_code"),
            ("code", code),
            ("redirect_uri", attempt.redirect_uri.as_str()),
            ("client_id", &self.client_id),
            ("client_secret", &self.client_secret),
            ("code_verifier", attempt.code_verifier.as_str()),
        ];
        let response = http
            .post(&self.endpoints.token)
            .header(reqwest::header::ACCEPT, "application/json")
            .form(&form)
            .send()
            .await
            .map_err(|error| Refusal::Unreachable(error.to_string()))?;
        if !response.status().is_success() {
            let status = response.status();
            let body = response.text().await.unwrap_or_default();
            return Err(Refusal::CodeRefused(format!("{status}: {}", body.chars().take(200).collect::<String>())));
        }
        let body = response.bytes().await.map_err(|error| Refusal::Unreachable(error.to_string()))?;
        let answer: TokenAnswer =
            serde_json::from_slice(&body).map_err(|error| Refusal::BadAnswer(format!("token answer: {error}")))?;
        if self.provider.is_openid() {
            let id_token = answer.id_token.ok_or_else(|| Refusal::BadAnswer("no id_token".into()))?;
            self.identity_of_token(http, keys, &id_token, &attempt.nonce, now).await
        } else {
            let access_token = answer.access_token.ok_or_else(|| Refusal::BadAnswer("no access_token".into()))?;
            self.facebook_identity(http, &access_token).await
        }
    }

    async fn identity_of_token(
        &self,
        http: &reqwest::Client,
        keys: &keys::KeyCache,
        id_token: &str,
        nonce: &str,
        now: Millis,
    ) -> Result<SocialIdentity, Refusal> {
        let jwks_url = self.endpoints.jwks.as_deref().ok_or_else(|| Refusal::BadAnswer("no jwks_url".into()))?;
        let payload = keys.verify(http, jwks_url, id_token, now).await?;
        let claims: IdTokenClaims =
            serde_json::from_slice(&payload).map_err(|error| Refusal::BadAnswer(format!("claims: {error}")))?;
        Ok(social::check_id_token(self.provider, claims, &self.endpoints.issuers, &self.client_id, nonce, now)?)
    }

    async fn facebook_identity(&self, http: &reqwest::Client, access_token: &str) -> Result<SocialIdentity, Refusal> {
        let url = self.endpoints.userinfo.as_deref().ok_or_else(|| Refusal::BadAnswer("no userinfo_url".into()))?;
        let person: FacebookPerson = get_json(http, url, Some(access_token)).await?;
        if person.id.trim().is_empty() {
            return Err(Refusal::BadAnswer("no id".into()));
        }
        Ok(SocialIdentity {
            provider: self.provider,
            subject: person.id,
            // Facebook gives only an address its user confirmed, and none otherwise.
            email_verified: person.email.is_some(),
            email: person.email,
            first_name: person.first_name.unwrap_or_default(),
            last_name: person.last_name.unwrap_or_default(),
        })
    }
}

async fn get_json<T: serde::de::DeserializeOwned>(
    http: &reqwest::Client,
    url: &str,
    bearer: Option<&str>,
) -> Result<T, Refusal> {
    let mut request = http.get(url).header(reqwest::header::ACCEPT, "application/json");
    if let Some(token) = bearer {
        request = request.bearer_auth(token);
    }
    let response = request.send().await.map_err(|error| Refusal::Unreachable(error.to_string()))?;
    if !response.status().is_success() {
        return Err(Refusal::BadAnswer(format!("{url}: {}", response.status())));
    }
    let body = response.bytes().await.map_err(|error| Refusal::Unreachable(error.to_string()))?;
    serde_json::from_slice(&body).map_err(|error| Refusal::BadAnswer(format!("{url}: {error}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn configured_endpoints_replace_the_providers_own() {
        let google = endpoints(SocialProvider::Google, &OAuthProviderConfig::default());
        assert_eq!(google.authorize, "https://accounts.google.com/o/oauth2/v2/auth");
        assert_eq!(google.issuers.len(), 2);
        assert_eq!(google.scope, "openid email profile");
        let fake = OAuthProviderConfig {
            token_url: Some("http://127.0.0.1:9/token".into()),
            issuer: Some("http://127.0.0.1:9".into()),
            ..OAuthProviderConfig::default()
        };
        let google = endpoints(SocialProvider::Google, &fake);
        assert_eq!(
            (google.token.as_str(), google.issuers.as_slice()),
            ("http://127.0.0.1:9/token", &["http://127.0.0.1:9".to_string()][..])
        );
        let facebook = endpoints(SocialProvider::Facebook, &OAuthProviderConfig::default());
        assert_eq!(
            (facebook.scope, facebook.jwks.is_none(), facebook.userinfo.is_some()),
            ("email public_profile", true, true)
        );
        assert!(endpoints(SocialProvider::Apple, &OAuthProviderConfig::default()).form_post);
    }

    #[test]
    fn the_pkce_challenge_is_rfc_7636s_example() {
        // RFC 7636 appendix B.
        assert_eq!(
            pkce_challenge("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
        );
    }
}
