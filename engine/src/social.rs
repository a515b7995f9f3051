//! Signing in with Google, Apple or Facebook (issue #37): which account an
//! identity the provider vouches for signs in to, what a first sign-in makes
//! (spec §4 "Sign-in profile creation": a rider, approved, wallet 0, regType
//! `social`), and the checks of an OpenID Connect ID token's claims.
//!
//! The redirects, the code exchange, the token's signature and the storage
//! are the edge's; this module sees only what they found.

use crate::UserId;
use crate::model::{Millis, RegType, Role, Settings, User};
use crate::rules::MAX_SHORT_TEXT_CHARS;
use crate::rules::contact::validate_email;
use serde::{Deserialize, Serialize};

/// A provider people may sign in with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum SocialProvider {
    Google,
    Apple,
    Facebook,
}

impl SocialProvider {
    pub const ALL: [SocialProvider; 3] = [SocialProvider::Google, SocialProvider::Apple, SocialProvider::Facebook];

    pub fn as_str(self) -> &'static str {
        match self {
            SocialProvider::Google => "google",
            SocialProvider::Apple => "apple",
            SocialProvider::Facebook => "facebook",
        }
    }

    pub fn parse(name: &str) -> Option<SocialProvider> {
        SocialProvider::ALL.into_iter().find(|provider| provider.as_str() == name)
    }

    /// Whether the provider speaks OpenID Connect (an ID token names the
    /// person); Facebook's OAuth 2 answers an access token for its Graph API.
    pub fn is_openid(self) -> bool {
        !matches!(self, SocialProvider::Facebook)
    }

    /// Whether the platform settings switch this provider on (spec §3
    /// `FacebookLoginEnabled`; `AppleLoginEnabled` and `GoogleLoginEnabled`
    /// are ours, alike). Its credentials must be configured too.
    pub fn switched_on(self, settings: &Settings) -> bool {
        match self {
            SocialProvider::Google => settings.GoogleLoginEnabled,
            SocialProvider::Apple => settings.AppleLoginEnabled,
            SocialProvider::Facebook => settings.FacebookLoginEnabled,
        }
    }
}

/// Who the provider says signed in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SocialIdentity {
    pub provider: SocialProvider,
    /// The provider's stable id of the person (`sub`, Facebook's `id`).
    pub subject: String,
    pub email: Option<String>,
    /// Whether the provider checked that the person owns `email`.
    pub email_verified: bool,
    pub first_name: String,
    pub last_name: String,
}

impl SocialIdentity {
    /// The e-mail, normalised, when the provider verified it and it is a
    /// proper address; an unverified one is never trusted with an account.
    pub fn verified_email(&self) -> Option<String> {
        if !self.email_verified {
            return None;
        }
        self.email.as_deref().and_then(|email| validate_email(email).ok())
    }
}

impl SocialIdentity {
    /// Names the provider gave beside its ID token fill the ones the token
    /// did not carry: Apple puts no name in its tokens and posts the
    /// person's name with the code, once, on their first sign-in. Only
    /// names are taken from there; that post is not signed, so an e-mail in
    /// it is never read.
    pub fn fill_names(&mut self, first_name: &str, last_name: &str) {
        if self.first_name.trim().is_empty() {
            self.first_name = first_name.to_string();
        }
        if self.last_name.trim().is_empty() {
            self.last_name = last_name.to_string();
        }
    }
}

/// Where a social sign-in goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SocialAccount {
    /// The identity was linked to this user before.
    Linked(UserId),
    /// This user has the identity's verified e-mail: link it, then sign in.
    LinkByEmail(UserId),
    /// Nobody: a first sign-in makes a rider ([`new_social_rider`]).
    NewRider,
}

/// Chooses the account: the one the identity is linked to; else the user
/// whose e-mail is the identity's verified e-mail (`same_email`, looked up
/// with [`SocialIdentity::verified_email`]); else a new rider.
pub fn choose_account(linked: Option<&User>, same_email: Option<&User>, identity: &SocialIdentity) -> SocialAccount {
    if let Some(user) = linked {
        return SocialAccount::Linked(user.id);
    }
    match (same_email, identity.verified_email()) {
        (Some(user), Some(email)) if user.email == email => SocialAccount::LinkByEmail(user.id),
        _ => SocialAccount::NewRider,
    }
}

/// A name from a provider, cut to what a profile holds: providers send
/// anything, and a missing name is no reason to refuse a sign-in.
fn profile_name(text: &str) -> String {
    text.trim().chars().filter(|character| !character.is_control()).take(MAX_SHORT_TEXT_CHARS).collect()
}

/// A first social sign-in (spec §4 "Sign-in profile creation"): an approved
/// rider with regType `social`, the provider's names and only a verified
/// e-mail, so that an unverified address can never later sign in by code.
/// Wallet 0; the referral code is drawn when it is stored.
pub fn new_social_rider(id: UserId, identity: &SocialIdentity, now: Millis) -> User {
    let mut user = User::new(id, Role::Rider, now);
    user.regType = RegType::Social;
    user.approved = true;
    user.firstName = profile_name(&identity.first_name);
    user.lastName = profile_name(&identity.last_name);
    user.email = identity.verified_email().unwrap_or_default();
    user
}

/// An ID token's `aud`: one client id or several.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(untagged)]
pub enum Audience {
    One(String),
    Many(Vec<String>),
}

impl Audience {
    fn contains(&self, client_id: &str) -> bool {
        match self {
            Audience::One(audience) => audience == client_id,
            Audience::Many(audiences) => audiences.iter().any(|audience| audience == client_id),
        }
    }
}

/// `email_verified` as Google (a boolean) and Apple (`"true"`) send it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(untagged)]
pub enum Flag {
    Bool(bool),
    Text(String),
}

impl Flag {
    fn is_true(&self) -> bool {
        match self {
            Flag::Bool(flag) => *flag,
            Flag::Text(text) => text == "true",
        }
    }
}

/// The claims of an OpenID Connect ID token this server reads.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct IdTokenClaims {
    pub iss: String,
    pub sub: String,
    pub aud: Audience,
    /// Seconds since the epoch.
    pub exp: i64,
    #[serde(default)]
    pub nonce: Option<String>,
    #[serde(default)]
    pub email: Option<String>,
    #[serde(default)]
    pub email_verified: Option<Flag>,
    #[serde(default)]
    pub given_name: Option<String>,
    #[serde(default)]
    pub family_name: Option<String>,
}

/// Why an ID token's claims were refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum ClaimsError {
    #[error("the token was issued by someone else")]
    Issuer,
    #[error("the token is for another client")]
    Audience,
    #[error("the token has expired")]
    Expired,
    #[error("the token's nonce is not this sign-in's")]
    Nonce,
    #[error("the token names nobody")]
    Subject,
}

/// How far a provider's clock may be ahead of ours.
pub const CLOCK_SKEW_SECS: i64 = 60;

/// Checks the claims of a token whose signature the edge verified (OpenID
/// Connect Core §3.1.3.7): issued by one of `issuers`, for `client_id`, not
/// expired at `now`, carrying this attempt's `nonce`, naming someone.
pub fn check_id_token(
    provider: SocialProvider,
    claims: IdTokenClaims,
    issuers: &[String],
    client_id: &str,
    nonce: &str,
    now: Millis,
) -> Result<SocialIdentity, ClaimsError> {
    if !issuers.contains(&claims.iss) {
        return Err(ClaimsError::Issuer);
    }
    if !claims.aud.contains(client_id) {
        return Err(ClaimsError::Audience);
    }
    if claims.exp + CLOCK_SKEW_SECS <= now.div_euclid(1000) {
        return Err(ClaimsError::Expired);
    }
    if claims.nonce.as_deref() != Some(nonce) {
        return Err(ClaimsError::Nonce);
    }
    if claims.sub.trim().is_empty() {
        return Err(ClaimsError::Subject);
    }
    Ok(SocialIdentity {
        provider,
        subject: claims.sub,
        email: claims.email,
        email_verified: claims.email_verified.as_ref().is_some_and(Flag::is_true),
        first_name: claims.given_name.unwrap_or_default(),
        last_name: claims.family_name.unwrap_or_default(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: Millis = 1_800_000_000_000;

    fn identity(email: &str, verified: bool) -> SocialIdentity {
        SocialIdentity {
            provider: SocialProvider::Google,
            subject: "g-123".into(),
            email: Some(email.into()),
            email_verified: verified,
            first_name: " Gail ".into(),
            last_name: "Google".into(),
        }
    }

    fn user_with_email(email: &str) -> User {
        let mut user = User::new(UserId(uuid::Uuid::from_u128(7)), Role::Rider, NOW);
        user.email = email.into();
        user
    }

    fn claims() -> IdTokenClaims {
        IdTokenClaims {
            iss: "https://issuer.test".into(),
            sub: "g-123".into(),
            aud: Audience::One("client-1".into()),
            exp: NOW / 1000 + 300,
            nonce: Some("n-1".into()),
            email: Some("Gail@Example.com".into()),
            email_verified: Some(Flag::Text("true".into())),
            given_name: Some("Gail".into()),
            family_name: None,
        }
    }

    fn check(claims: IdTokenClaims) -> Result<SocialIdentity, ClaimsError> {
        check_id_token(SocialProvider::Google, claims, &["https://issuer.test".into()], "client-1", "n-1", NOW)
    }

    #[test]
    fn a_linked_identity_signs_in_to_its_user_whatever_the_email() {
        let linked = user_with_email("someone@else.com");
        let other = user_with_email("gail@example.com");
        let identity = identity("gail@example.com", true);
        assert_eq!(choose_account(Some(&linked), Some(&other), &identity), SocialAccount::Linked(linked.id));
    }

    #[test]
    fn only_a_verified_matching_email_links_an_existing_user() {
        let existing = user_with_email("gail@example.com");
        let verified = identity("Gail@Example.com", true);
        assert_eq!(choose_account(None, Some(&existing), &verified), SocialAccount::LinkByEmail(existing.id));
        let unverified = identity("gail@example.com", false);
        assert_eq!(choose_account(None, Some(&existing), &unverified), SocialAccount::NewRider);
        let elsewhere = user_with_email("other@example.com");
        assert_eq!(choose_account(None, Some(&elsewhere), &verified), SocialAccount::NewRider);
        assert_eq!(choose_account(None, None, &verified), SocialAccount::NewRider);
    }

    #[test]
    fn a_new_social_rider_is_approved_and_keeps_only_a_verified_email() {
        let id = UserId(uuid::Uuid::from_u128(9));
        let rider = new_social_rider(id, &identity("Gail@Example.com", true), NOW);
        assert_eq!((rider.usertype, rider.regType, rider.approved), (Role::Rider, RegType::Social, true));
        assert_eq!((rider.firstName.as_str(), rider.lastName.as_str()), ("Gail", "Google"));
        assert_eq!(rider.email, "gail@example.com");
        assert_eq!(rider.walletBalance, rust_decimal::Decimal::ZERO);
        let unverified = new_social_rider(id, &identity("gail@example.com", false), NOW);
        assert_eq!(unverified.email, "");
    }

    #[test]
    fn names_posted_beside_the_token_fill_only_what_the_token_lacks() {
        let mut apple = apple_identity();
        apple.fill_names("Ada", "Apple");
        assert_eq!((apple.first_name.as_str(), apple.last_name.as_str()), ("Ada", "Apple"));
        let mut google = identity("gail@example.com", true);
        google.fill_names("Someone", "Else");
        assert_eq!((google.first_name.as_str(), google.last_name.as_str()), (" Gail ", "Google"));
        let rider = new_social_rider(UserId(uuid::Uuid::from_u128(9)), &apple, NOW);
        assert_eq!((rider.firstName.as_str(), rider.lastName.as_str()), ("Ada", "Apple"));
    }

    /// An Apple identity: its ID token names nobody.
    fn apple_identity() -> SocialIdentity {
        SocialIdentity {
            provider: SocialProvider::Apple,
            subject: "001234.abcd".into(),
            email: Some("ada@privaterelay.appleid.com".into()),
            email_verified: true,
            first_name: String::new(),
            last_name: String::new(),
        }
    }

    #[test]
    fn good_claims_name_the_person() {
        let identity = check(claims()).unwrap();
        assert_eq!(identity.subject, "g-123");
        assert!(identity.email_verified, "Apple's \"true\" counts");
        assert_eq!(identity.verified_email().as_deref(), Some("gail@example.com"));
        let many = IdTokenClaims { aud: Audience::Many(vec!["x".into(), "client-1".into()]), ..claims() };
        assert!(check(many).is_ok());
    }

    #[test]
    fn each_bad_claim_is_refused() {
        let table = [
            (IdTokenClaims { iss: "https://evil.test".into(), ..claims() }, ClaimsError::Issuer),
            (IdTokenClaims { aud: Audience::One("client-2".into()), ..claims() }, ClaimsError::Audience),
            (IdTokenClaims { exp: NOW / 1000 - CLOCK_SKEW_SECS, ..claims() }, ClaimsError::Expired),
            (IdTokenClaims { nonce: Some("n-2".into()), ..claims() }, ClaimsError::Nonce),
            (IdTokenClaims { nonce: None, ..claims() }, ClaimsError::Nonce),
            (IdTokenClaims { sub: " ".into(), ..claims() }, ClaimsError::Subject),
        ];
        for (claims, error) in table {
            assert_eq!(check(claims), Err(error));
        }
    }

    #[test]
    fn providers_are_named_and_switched_on_by_their_setting() {
        for provider in SocialProvider::ALL {
            assert_eq!(SocialProvider::parse(provider.as_str()), Some(provider));
        }
        assert_eq!(SocialProvider::parse("twitter"), None);
        let settings = Settings { AppleLoginEnabled: true, ..Settings::default() };
        assert!(SocialProvider::Apple.switched_on(&settings));
        assert!(!SocialProvider::Google.switched_on(&settings));
        assert!(!SocialProvider::Facebook.is_openid());
    }
}
