//! The signed-in user's profile (spec §2 "Profile", §5 "Profile", §7
//! updateProfile): names, e-mail and phone under the lock rules that depend
//! on how the account was made, and the language. The body is the one the
//! web app sends (`ui/src/features/profile/api/profile.ts`).

use crate::admin_support::*;
use crate::support::*;
use serde_json::json;

const ME: &str = "/api/v1/users/me";

#[tokio::test]
async fn a_user_changes_their_names_and_gets_themself_back() {
    let app = TestApp::demo().await;
    let rider = app.sign_in("rider1@demo.wayfare").await;
    let body = json!({ "firstName": " Rita ", "lastName": "Rider", "email": "rider1@demo.wayfare", "lang": { "langLocale": "ar", "dateLocale": "ar" } });
    let updated = patch(&app, ME, Some(&rider), body).await;
    let user = &updated.expect(200)["user"];
    assert_eq!((user["firstName"].as_str(), user["lastName"].as_str()), (Some("Rita"), Some("Rider")));
    assert_eq!(user["lang"], json!({ "langLocale": "ar", "dateLocale": "ar" }));
    assert!(user.get("pushToken").is_none());
    let me = app.get("/api/v1/auth/me", Some(&rider)).await;
    assert_eq!(me.expect(200)["user"]["firstName"], "Rita");
}

#[tokio::test]
async fn names_may_not_be_blank() {
    // spec §5 Booking: a blank name would make the profile incomplete
    let app = TestApp::demo().await;
    let rider = app.sign_in("rider1@demo.wayfare").await;
    patch(&app, ME, Some(&rider), json!({ "firstName": " " })).await.refused_on(400, "profile_incomplete", "firstName");
    patch(&app, ME, Some(&rider), json!({ "lastName": "x".repeat(101) })).await.refused_on(
        400,
        "invalid_input",
        "lastName",
    );
}

#[tokio::test]
async fn an_email_account_keeps_its_email_but_may_change_its_phone() {
    // spec §2 Profile: e-mail locked when regType is email; phone locked when mobile
    let app = TestApp::demo().await;
    let rider = app.sign_in("rider2@demo.wayfare").await;
    assert_eq!(rider.user["regType"], "email");
    patch(&app, ME, Some(&rider), json!({ "email": "new@test.wayfare" })).await.refused_on(
        403,
        "field_locked",
        "email",
    );
    let phone = patch(&app, ME, Some(&rider), json!({ "mobile": "+1 410 555 7777" })).await;
    assert_eq!(phone.expect(200)["user"]["mobile"], "+14105557777");
    // A phone another account has.
    patch(&app, ME, Some(&rider), json!({ "mobile": "+14105550203" })).await.refused_on(409, "user_exists", "mobile");
    patch(&app, ME, Some(&rider), json!({ "mobile": "12345" })).await.refused_on(
        400,
        "mobile_no_blank_error",
        "mobile",
    );
}

#[tokio::test]
async fn a_phone_account_keeps_its_phone_but_may_set_a_proper_email() {
    let app = TestApp::demo().await;
    let phone_rider = app.sign_in("+14105558800").await;
    assert_eq!(phone_rider.user["regType"], "mobile", "a first phone sign-in makes a phone account");
    patch(&app, ME, Some(&phone_rider), json!({ "mobile": "+14105558801" })).await.refused_on(
        403,
        "field_locked",
        "mobile",
    );
    patch(&app, ME, Some(&phone_rider), json!({ "email": "not an email" })).await.refused_on(
        400,
        "proper_email",
        "email",
    );
    patch(&app, ME, Some(&phone_rider), json!({ "email": "rider3@demo.wayfare" })).await.refused_on(
        409,
        "user_exists",
        "email",
    );
    let set = patch(
        &app,
        ME,
        Some(&phone_rider),
        json!({ "email": "Phone.Rider@Test.Wayfare", "mobile": "+1 410 555 8800" }),
    )
    .await;
    let user = &set.expect(200)["user"];
    assert_eq!(
        (user["email"].as_str(), user["mobile"].as_str()),
        (Some("phone.rider@test.wayfare"), Some("+14105558800"))
    );
    // Sending the own e-mail again is not someone else's.
    patch(&app, ME, Some(&phone_rider), json!({ "email": "phone.rider@test.wayfare" })).await.expect(200);
}

#[tokio::test]
async fn accounts_an_admin_made_keep_both_contacts() {
    // spec §2 Profile: both locked when regType is admin
    let app = TestApp::demo().await;
    let admin = app.sign_in(ADMIN).await;
    patch(&app, ME, Some(&admin), json!({ "email": "boss@test.wayfare" })).await.refused_on(
        403,
        "field_locked",
        "email",
    );
    patch(&app, ME, Some(&admin), json!({ "mobile": "+14105559999" })).await.refused_on(403, "field_locked", "mobile");
    assert_eq!(
        patch(&app, ME, Some(&admin), json!({ "firstName": "Ada" })).await.expect(200)["user"]["firstName"],
        "Ada"
    );
}

#[tokio::test]
async fn a_social_account_keeps_at_least_one_contact() {
    let app = TestApp::demo().await;
    let mut social = extra_rider(1);
    social.regType = wayfare_engine::RegType::Social;
    app.insert_user(&social).await;
    let session = app.sign_in(&social.email).await;
    let cleared = patch(&app, ME, Some(&session), json!({ "mobile": "" })).await;
    assert_eq!(cleared.expect(200)["user"]["mobile"], "");
    patch(&app, ME, Some(&session), json!({ "email": "" })).await.refused_on(400, "email_or_mobile_issue", "email");
}

#[tokio::test]
async fn the_language_must_be_one_the_platform_lists() {
    let app = TestApp::demo().await;
    let rider = app.sign_in("rider1@demo.wayfare").await;
    let lang = |locale: &str| json!({ "lang": { "langLocale": locale, "dateLocale": locale } });
    patch(&app, ME, Some(&rider), lang("e n")).await.refused_on(400, "invalid_input", "lang");
    // The demo lists English, Arabic and French (the shipped languages): only those.
    assert_eq!(app.state.storage.languages().await.unwrap().len(), 3);
    patch(&app, ME, Some(&rider), lang("de")).await.refused_on(400, "invalid_input", "lang");
    let chosen = patch(&app, ME, Some(&rider), lang("fr")).await;
    assert_eq!(chosen.expect(200)["user"]["lang"]["langLocale"], "fr");
    patch(&app, ME, Some(&rider), json!({ "lang": { "langLocale": "fr" } })).await.refused_on(
        400,
        "invalid_input",
        "body",
    );
}

#[tokio::test]
async fn every_role_edits_their_own_profile_even_in_demo_mode() {
    // permissions: own profile is not a guarded admin-panel write
    let app = TestApp::with_settings(|settings| settings.AllowCriticalEditsAdmin = false).await;
    for contact in ["rider1@demo.wayfare", "driver1@demo.wayfare", FLEET, ADMIN] {
        let session = app.sign_in(contact).await;
        let updated = patch(&app, ME, Some(&session), json!({ "lastName": "Changed" })).await;
        let user = &updated.expect(200)["user"];
        assert_eq!(user["lastName"], "Changed");
        assert_eq!(user["email"], contact, "their own contact is not masked");
    }
    patch(&app, ME, None, json!({ "lastName": "Nobody" })).await.refused(401, "not_logged_in");
}
