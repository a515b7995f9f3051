//! Languages (spec §3 "Language", §4 "Language", §5, §7 `editLanguage`,
//! §8 'JSON Error', 'Cannot delete default language'): the shipped
//! dictionaries, adding, editing, deleting and the default's rules, and
//! server messages in the reader's language with the fallbacks of spec §1
//! (the user's language, else the default, then `en`).

use crate::notify_lang_support::*;
use crate::support::*;
use axum::http::header;
use serde_json::{Value, json};
use wayfare_engine::UserLang;

fn id_of(language: &Value) -> String {
    language["id"].as_str().unwrap().to_string()
}

fn defaults(list: &Value) -> Vec<String> {
    list.as_array()
        .unwrap()
        .iter()
        .filter(|language| language["default"] == true)
        .map(|language| language["langLocale"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn english_arabic_and_french_ship_with_english_the_default() {
    let app = TestApp::demo().await;
    let list = app.get("/api/v1/languages", None).await;
    let locales: Vec<&str> =
        list.expect(200).as_array().unwrap().iter().map(|language| language["langLocale"].as_str().unwrap()).collect();
    assert_eq!(locales, ["en", "ar", "fr"]);
    assert_eq!(defaults(&list.body), ["en"]);
    for locale in ["en", "ar", "fr"] {
        let pairs = &language(&app, locale).await["keyValuePairs"];
        // spec §9: the keys used for messages
        for key in [
            "notification_title",
            "wallet_updated",
            "accept_booking_request",
            "booking_cancelled",
            "chat_requested",
            "json_error",
            "cannot_delete_default_language",
            "nav.home",
        ] {
            assert!(pairs[key].as_str().is_some_and(|text| !text.is_empty()), "{locale} has {key}");
        }
    }
    assert_eq!(language(&app, "ar").await["keyValuePairs"]["nav.home"], "الرئيسية");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_admin_adds_edits_and_deletes_a_language() {
    let app = TestApp::demo().await;
    let admin = app.sign_in("admin@demo.wayfare").await;
    let added = app
        .post(
            "/api/v1/languages",
            Some(&admin),
            json!({ "langName": "Deutsch", "langLocale": "de", "keyValuePairs": { "must_login": "Bitte anmelden." } }),
        )
        .await;
    let added = added.expect(201).clone();
    assert_eq!(
        (added["langName"].as_str(), added["dateLocale"].as_str(), added["default"].as_bool()),
        (Some("Deutsch"), Some("de"), Some(false))
    );
    assert_eq!(added["keyValuePairs"], json!({ "must_login": "Bitte anmelden." }));
    let id = id_of(&added);

    // The panel's JSON editor sends the dictionary as text.
    let edited = put(&app, &format!("/api/v1/languages/{id}"), Some(&admin), json!({ "langName": "Deutsch (DE)", "langLocale": "de-DE", "dateLocale": "de", "keyValuePairs": "{\"must_login\": \"Bitte zuerst anmelden.\"}" })).await;
    let edited = edited.expect(200);
    assert_eq!((edited["langName"].as_str(), edited["langLocale"].as_str()), (Some("Deutsch (DE)"), Some("de-DE")));
    assert_eq!(edited["keyValuePairs"]["must_login"], "Bitte zuerst anmelden.");
    assert_eq!(edited["createdAt"], added["createdAt"]);
    assert_eq!(app.get("/api/v1/languages", None).await.expect(200).as_array().unwrap().len(), 4);

    delete(&app, &format!("/api/v1/languages/{id}"), Some(&admin)).await.expect(204);
    assert_eq!(app.get("/api/v1/languages", None).await.expect(200).as_array().unwrap().len(), 3);
    delete(&app, &format!("/api/v1/languages/{id}"), Some(&admin)).await.refused(404, "not_found");
    put(&app, &format!("/api/v1/languages/{id}"), Some(&admin), json!({ "langName": "X", "langLocale": "de" }))
        .await
        .refused(404, "not_found");
    app.post_empty(&format!("/api/v1/languages/{id}/default"), Some(&admin)).await.refused(404, "not_found");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dictionary_that_is_not_a_json_object_of_texts_is_json_error() {
    // spec §5: Language JSON must parse, else 'JSON Error'
    let app = TestApp::demo().await;
    let admin = app.sign_in("admin@demo.wayfare").await;
    for pairs in [
        json!("{not json"),
        json!("[\"a\"]"),
        json!({ "nested": { "a": "b" } }),
        json!({ "n": 1 }),
        json!(["a"]),
        json!(42),
    ] {
        let reply = app
            .post(
                "/api/v1/languages",
                Some(&admin),
                json!({ "langName": "Deutsch", "langLocale": "de", "keyValuePairs": pairs }),
            )
            .await;
        reply.refused_on(400, "json_error", "keyValuePairs");
        assert_eq!(reply.body["error"]["message"], "JSON Error");
    }
    let french = language(&app, "fr").await;
    put(
        &app,
        &format!("/api/v1/languages/{}", id_of(&french)),
        Some(&admin),
        json!({ "langName": "Français", "langLocale": "fr", "keyValuePairs": "{" }),
    )
    .await
    .refused_on(400, "json_error", "keyValuePairs");
    // Names and locales.
    app.post("/api/v1/languages", Some(&admin), json!({ "langName": " ", "langLocale": "de" })).await.refused_on(
        400,
        "invalid_input",
        "langName",
    );
    app.post("/api/v1/languages", Some(&admin), json!({ "langName": "Deutsch", "langLocale": "german" }))
        .await
        .refused_on(400, "invalid_input", "langLocale");
    app.post("/api/v1/languages", Some(&admin), json!({ "langName": "Français 2", "langLocale": "FR" }))
        .await
        .refused_on(409, "language_exists", "langLocale");
    assert_eq!(app.get("/api/v1/languages", None).await.expect(200).as_array().unwrap().len(), 3, "nothing was added");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_default_cannot_be_deleted_and_making_another_default_moves_the_flag() {
    let app = TestApp::demo().await;
    let admin = app.sign_in("admin@demo.wayfare").await;
    let english = language(&app, "en").await;
    let french = language(&app, "fr").await;
    let refused = delete(&app, &format!("/api/v1/languages/{}", id_of(&english)), Some(&admin)).await;
    refused.refused(409, "cannot_delete_default_language");
    assert_eq!(refused.body["error"]["message"], "Cannot delete default language");

    let moved = app.post_empty(&format!("/api/v1/languages/{}/default", id_of(&french)), Some(&admin)).await;
    assert_eq!(defaults(moved.expect(200)), ["fr"], "exactly one default");
    assert_eq!(defaults(app.get("/api/v1/languages", None).await.expect(200)), ["fr"]);
    // Editing the default keeps it the default.
    put(
        &app,
        &format!("/api/v1/languages/{}", id_of(&french)),
        Some(&admin),
        json!({ "langName": "Français", "langLocale": "fr", "keyValuePairs": french["keyValuePairs"] }),
    )
    .await
    .expect(200);
    assert_eq!(defaults(app.get("/api/v1/languages", None).await.expect(200)), ["fr"]);
    delete(&app, &format!("/api/v1/languages/{}", id_of(&french)), Some(&admin))
        .await
        .refused(409, "cannot_delete_default_language");
    delete(&app, &format!("/api/v1/languages/{}", id_of(&english)), Some(&admin)).await.expect(204);

    // A new language added as the default takes the flag.
    let added = app
        .post(
            "/api/v1/languages",
            Some(&admin),
            json!({ "langName": "Español", "langLocale": "es", "default": true, "keyValuePairs": {} }),
        )
        .await;
    assert_eq!(added.expect(201)["default"], true);
    assert_eq!(defaults(app.get("/api/v1/languages", None).await.expect(200)), ["es"]);
}

/// Gives a demo user a language, in storage (the profile route is not under test).
async fn speak(app: &TestApp, email: &str, locale: &str) {
    let mut user = app.state.storage.user_by_email(email).await.unwrap().unwrap();
    user.lang = Some(UserLang { langLocale: locale.into(), dateLocale: locale.into() });
    app.state.storage.update_user(&user, app.now()).await.unwrap();
}

fn message(reply: &Reply) -> String {
    reply.body["error"]["message"].as_str().unwrap().to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn error_messages_are_in_the_readers_language_with_fallbacks() {
    let app = TestApp::demo().await;
    let admin = app.sign_in("admin@demo.wayfare").await;
    let text = |pairs: &Value, key: &str| pairs[key].as_str().unwrap().to_string();
    let english = language(&app, "en").await;
    let arabic = language(&app, "ar").await;
    let french = language(&app, "fr").await;

    // A signed-in user's own language.
    speak(&app, "rider1@demo.wayfare", "ar").await;
    let rider = app.sign_in("rider1@demo.wayfare").await;
    let refused = app.get("/api/v1/notifications", Some(&rider)).await;
    refused.refused(403, "not_allowed");
    assert_eq!(message(&refused), text(&arabic["keyValuePairs"], "not_allowed"));
    assert_eq!(refused.header(header::CONTENT_LANGUAGE), Some("ar"));
    // Even when the handler fails before reading the session (a malformed id).
    let malformed = delete(&app, "/api/v1/promos/not-an-id", Some(&rider)).await;
    assert_eq!(
        (malformed.error_code(), message(&malformed)),
        ("not_found", text(&arabic["keyValuePairs"], "not_found"))
    );
    // The user's language wins over the browser's.
    let header_too = get_in(&app, "/api/v1/notifications", Some(&rider), "fr").await;
    assert_eq!(message(&header_too), text(&arabic["keyValuePairs"], "not_allowed"));

    // Visitors: Accept-Language, then the default.
    let visitor = get_in(&app, "/api/v1/promos", None, "fr-CA,fr;q=0.9,en;q=0.5").await;
    assert_eq!(
        (visitor.error_code(), message(&visitor)),
        ("not_logged_in", text(&french["keyValuePairs"], "not_logged_in"))
    );
    let unknown = get_in(&app, "/api/v1/promos", None, "de").await;
    assert_eq!(message(&unknown), text(&english["keyValuePairs"], "not_logged_in"), "the default (en)");
    let input = post_in(&app, "/api/v1/auth/otp/request", None, json!({ "contact": "" }), "ar").await;
    assert_eq!(message(&input), text(&arabic["keyValuePairs"], input.error_code()));

    // Another default: visitors without a known language and users without one get it.
    app.post_empty(&format!("/api/v1/languages/{}/default", id_of(&french)), Some(&admin)).await.expect(200);
    assert_eq!(message(&app.get("/api/v1/promos", None).await), text(&french["keyValuePairs"], "not_logged_in"));
    speak(&app, "rider2@demo.wayfare", "de").await;
    let german = app.sign_in("rider2@demo.wayfare").await;
    assert_eq!(
        message(&app.get("/api/v1/notifications", Some(&german)).await),
        text(&french["keyValuePairs"], "not_allowed")
    );

    // A key the user's language lacks comes from the default, then from en.
    let mut arabic_pairs = arabic["keyValuePairs"].clone();
    arabic_pairs.as_object_mut().unwrap().remove("not_allowed");
    put(
        &app,
        &format!("/api/v1/languages/{}", id_of(&arabic)),
        Some(&admin),
        json!({ "langName": "العربية", "langLocale": "ar", "keyValuePairs": arabic_pairs }),
    )
    .await
    .expect(200);
    assert_eq!(
        message(&app.get("/api/v1/notifications", Some(&rider)).await),
        text(&french["keyValuePairs"], "not_allowed"),
        "the default's text"
    );
    let mut french_pairs = french["keyValuePairs"].clone();
    french_pairs.as_object_mut().unwrap().remove("not_allowed");
    put(
        &app,
        &format!("/api/v1/languages/{}", id_of(&french)),
        Some(&admin),
        json!({ "langName": "Français", "langLocale": "fr", "keyValuePairs": french_pairs }),
    )
    .await
    .expect(200);
    assert_eq!(
        message(&app.get("/api/v1/notifications", Some(&rider)).await),
        text(&english["keyValuePairs"], "not_allowed"),
        "then en"
    );
    // An edited text is used at once.
    let mut edited = english["keyValuePairs"].clone();
    edited["not_allowed"] = json!("Nope.");
    put(
        &app,
        &format!("/api/v1/languages/{}", id_of(&english)),
        Some(&admin),
        json!({ "langName": "English", "langLocale": "en", "keyValuePairs": edited }),
    )
    .await
    .expect(200);
    assert_eq!(message(&app.get("/api/v1/notifications", Some(&rider)).await), "Nope.");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sign_in_code_is_sent_in_the_language_the_browser_asks_for() {
    let app = TestApp::demo().await;
    let french = language(&app, "fr").await["keyValuePairs"].clone();
    post_in(&app, "/api/v1/auth/otp/request", None, json!({ "contact": "rider3@demo.wayfare" }), "fr-FR,fr;q=0.9")
        .await
        .expect(200);
    let outbox = app.get(&format!("/api/v1/dev/outbox?to={}", query_encode("rider3@demo.wayfare")), None).await;
    let sent = &outbox.expect(200)["messages"][0];
    let code = sent["code"].as_str().unwrap();
    assert_eq!(sent["subject"], french["sign_in_code_subject"]);
    assert_eq!(sent["body"].as_str().unwrap(), french["sign_in_code_body"].as_str().unwrap().replace("{code}", code));
    // No header: the default language (English).
    app.request_code("rider4@demo.wayfare").await.expect(200);
    let english = app.get(&format!("/api/v1/dev/outbox?to={}", query_encode("rider4@demo.wayfare")), None).await;
    assert_eq!(
        english.expect(200)["messages"][0]["subject"],
        language(&app, "en").await["keyValuePairs"]["sign_in_code_subject"]
    );
}
