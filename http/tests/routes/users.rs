//! The users tables (spec §5 "Admin panel", §6, §7 fetchUsers, addUser,
//! editUser, deleteUser, checkUserExists): listing by role with search and
//! pages, the existence check, adding, editing, approving and deleting, with
//! fleet admins kept to their own drivers and demo mode's refusals.

use crate::admin_support::*;
use crate::support::*;
use serde_json::{Value, json};
use std::collections::BTreeSet;
use wayfare_engine::{Role, UserId};

fn roles_of(page: &Value) -> BTreeSet<String> {
    page["items"].as_array().unwrap().iter().map(|user| user["usertype"].as_str().unwrap().to_string()).collect()
}

fn emails_of(page: &Value) -> Vec<String> {
    page["items"].as_array().unwrap().iter().map(|user| user["email"].as_str().unwrap().to_string()).collect()
}

// ---- list ------------------------------------------------------------------------

#[tokio::test]
async fn the_admin_list_shows_everyone_but_admins_unless_the_admin_table_asks() {
    // spec §6: the admin-visible user list excludes admins
    let app = TestApp::demo().await;
    let admin = app.sign_in(ADMIN).await;
    let everyone = app.get("/api/v1/users?limit=500", Some(&admin)).await;
    let body = everyone.expect(200);
    assert_eq!(roles_of(body), BTreeSet::from(["rider".into(), "driver".into(), "fleetadmin".into()]));
    let (riders_seeded, drivers_seeded) =
        (wayfare_http::demo::RIDERS, wayfare_http::config::DemoSeedConfig::DEFAULT_DRIVERS);
    assert_eq!(body["items"].as_array().unwrap().len(), (riders_seeded + drivers_seeded + 1) as usize);
    assert!(body["items"].as_array().unwrap().iter().all(|user| user.get("pushToken").is_none()));
    assert!(
        body["items"].as_array().unwrap().iter().all(|user| user["walletBalance"].is_number()),
        "admins see balances"
    );

    let admins = app.get("/api/v1/users?role=admin", Some(&admin)).await;
    assert_eq!(emails_of(admins.expect(200)), vec![ADMIN.to_string()]);
    let riders = app.get("/api/v1/users?role=rider", Some(&admin)).await;
    assert_eq!(roles_of(riders.expect(200)), BTreeSet::from(["rider".into()]));
    assert_eq!(riders.body["items"].as_array().unwrap().len(), riders_seeded as usize);
}

#[tokio::test]
async fn the_list_searches_and_pages() {
    let app = TestApp::demo().await;
    let admin = app.sign_in(ADMIN).await;
    let found = app.get("/api/v1/users?role=rider&search=rider3", Some(&admin)).await;
    assert_eq!(emails_of(found.expect(200)), vec!["rider3@demo.wayfare".to_string()]);

    let mut seen = BTreeSet::new();
    let mut path = "/api/v1/users?role=driver&limit=7".to_string();
    let mut pages = 0;
    loop {
        let page = app.get(&path, Some(&admin)).await;
        let body = page.expect(200).clone();
        assert!(body["items"].as_array().unwrap().len() <= 7);
        seen.extend(emails_of(&body));
        pages += 1;
        match body["next"].as_str() {
            Some(next) => path = format!("/api/v1/users?role=driver&limit=7&after={}", query_encode(next)),
            None => break,
        }
    }
    assert_eq!((seen.len(), pages), (20, 3));
}

#[tokio::test]
async fn a_list_filters_by_approval() {
    let app = TestApp::demo().await;
    let mut waiting = driver(3);
    waiting.id = UserId::from_u128(0xAAA1);
    waiting.email = "waiting@test.wayfare".into();
    waiting.mobile = "+14105557001".into();
    waiting.referralId = "WAITA".into();
    waiting.approved = false;
    app.insert_user(&waiting).await;
    let admin = app.sign_in(ADMIN).await;
    let pending = app.get("/api/v1/users?role=driver&approved=false", Some(&admin)).await;
    assert_eq!(emails_of(pending.expect(200)), vec!["waiting@test.wayfare".to_string()]);
}

#[tokio::test]
async fn a_fleet_admin_lists_only_their_own_drivers() {
    // spec §6: fleet admins see only drivers whose fleetadmin is their id
    let app = app_with_two_fleets().await;
    let fleet = app.sign_in(FLEET).await;
    let mine = app.get("/api/v1/users", Some(&fleet)).await;
    let body = mine.expect(200);
    let fleet_id = fleet_admin().id.to_string();
    assert_eq!(body["items"].as_array().unwrap().len(), 10, "the even demo drivers");
    assert!(
        body["items"]
            .as_array()
            .unwrap()
            .iter()
            .all(|user| user["usertype"] == "driver" && user["fleetadmin"] == fleet_id)
    );
    assert!(
        body["items"].as_array().unwrap().iter().all(|user| user.get("walletBalance").is_none()),
        "wallets are the owner's and admins'"
    );
    let asked = app.get("/api/v1/users?role=driver&search=Otherfleet", Some(&fleet)).await;
    assert!(asked.expect(200)["items"].as_array().unwrap().is_empty(), "never another fleet's driver");
    app.get("/api/v1/users?role=rider", Some(&fleet)).await.refused(403, "not_allowed");
}

#[tokio::test]
async fn named_users_are_read_in_the_order_asked_within_the_callers_scope() {
    let app = app_with_two_fleets().await;
    let admin = app.sign_in("admin@demo.wayfare").await;
    let (ours, theirs, someone) = (driver(4).id, other_fleet_driver().id, rider(1).id);
    let unknown = UserId::from_u128(404);
    let path = |ids: &[UserId]| {
        format!("/api/v1/users?ids={}", ids.iter().map(|id| id.to_string()).collect::<Vec<_>>().join(","))
    };
    let ids_of = |page: &Value| -> Vec<String> {
        page["items"].as_array().unwrap().iter().map(|user| user["id"].as_str().unwrap().to_string()).collect()
    };
    let reply = app.get(&path(&[theirs, someone, unknown, ours, theirs]), Some(&admin)).await;
    assert_eq!(ids_of(reply.expect(200)), [theirs.to_string(), someone.to_string(), ours.to_string()]);
    // A fleet admin gets their own drivers only: no rider, no other fleet's driver.
    let fleet = app.sign_in(FLEET).await;
    let reply = app.get(&path(&[theirs, someone, ours]), Some(&fleet)).await;
    let page = reply.expect(200);
    assert_eq!(ids_of(page), [ours.to_string()]);
    assert_eq!(page["items"][0]["firstName"], driver(4).firstName);
    app.get("/api/v1/users?ids=not-an-id", Some(&admin)).await.refused(400, "invalid_input");
    let many: Vec<UserId> = (0..101).map(|n| UserId::from_u128(1_000 + n)).collect();
    app.get(&path(&many), Some(&admin)).await.refused(400, "invalid_input");
    let rider = app.sign_in("rider1@demo.wayfare").await;
    app.get(&path(&[ours]), Some(&rider)).await.refused(403, "not_allowed");
}

#[tokio::test]
async fn a_bad_role_filter_is_invalid_input() {
    let app = TestApp::demo().await;
    let admin = app.sign_in(ADMIN).await;
    app.get("/api/v1/users?role=pilot", Some(&admin)).await.refused_on(400, "invalid_input", "role");
    app.get("/api/v1/users?after=nonsense", Some(&admin)).await.refused(400, "invalid_input");
}

// ---- existence check ------------------------------------------------------------------

#[tokio::test]
async fn the_existence_check_says_which_contact_is_taken() {
    // spec §7 checkUserExists
    let app = TestApp::demo().await;
    let admin = app.sign_in(ADMIN).await;
    let taken = app.get("/api/v1/users/exists?email=RIDER1%40demo.wayfare", Some(&admin)).await;
    assert_eq!(taken.expect(200), &json!({ "exists": true, "email": true, "mobile": false }));
    let by_phone = app.get("/api/v1/users/exists?mobile=%2B1%20410%20555%200201", Some(&admin)).await;
    assert_eq!(by_phone.expect(200), &json!({ "exists": true, "email": false, "mobile": true }));
    let free = app.get("/api/v1/users/exists?email=new%40test.wayfare&mobile=%2B14105559999", Some(&admin)).await;
    assert_eq!(free.expect(200), &json!({ "exists": false, "email": false, "mobile": false }));
    let fleet = app.sign_in(FLEET).await;
    assert_eq!(
        app.get("/api/v1/users/exists?email=rider2%40demo.wayfare", Some(&fleet)).await.expect(200)["exists"],
        true
    );
}

#[tokio::test]
async fn the_existence_check_needs_a_proper_contact() {
    // spec §5: if the check errors, 'email_or_mobile_issue'
    let app = TestApp::demo().await;
    let admin = app.sign_in(ADMIN).await;
    app.get("/api/v1/users/exists", Some(&admin)).await.refused_on(400, "email_or_mobile_issue", "contact");
    app.get("/api/v1/users/exists?email=nope", Some(&admin)).await.refused_on(400, "email_or_mobile_issue", "email");
    app.get("/api/v1/users/exists?mobile=123", Some(&admin)).await.refused_on(400, "email_or_mobile_issue", "mobile");
}

// ---- add ---------------------------------------------------------------------------------

#[tokio::test]
async fn an_admin_adds_each_kind_of_user_and_they_can_sign_in() {
    let app = TestApp::demo().await;
    let admin = app.sign_in(ADMIN).await;
    for (number, role) in ["rider", "driver", "fleetadmin", "admin"].into_iter().enumerate() {
        let email = format!("added{number}@test.wayfare");
        let body = json!({ "usertype": role, "firstName": "New", "lastName": role, "email": email.to_uppercase(), "mobile": format!("+1 410 555 60{number:02}") });
        let added = app.post("/api/v1/users", Some(&admin), body).await;
        let user = added.expect(201);
        assert_eq!(user["usertype"], role);
        assert_eq!(user["email"], email, "normalised");
        assert_eq!(user["mobile"], format!("+141055560{number:02}"));
        assert_eq!(user["regType"], "admin", "spec §2: contacts fixed for accounts an admin made");
        assert_eq!(user["approved"], true);
        assert_eq!(user["walletBalance"], 0.0);
        let referral = user["referralId"].as_str().unwrap();
        assert!(referral.len() == 5 && referral.chars().all(|c| c.is_ascii_uppercase()), "{referral}");
        let session = app.sign_in(&email).await;
        assert_eq!(session.id, id_of(user));
    }
}

#[tokio::test]
async fn an_existing_email_or_mobile_is_user_exists() {
    // spec §5: if users come back, 'user_exists' and the add is rejected
    let app = TestApp::demo().await;
    let admin = app.sign_in(ADMIN).await;
    let same_email = json!({ "usertype": "rider", "firstName": "A", "lastName": "B", "email": "Rider2@demo.wayfare" });
    app.post("/api/v1/users", Some(&admin), same_email).await.refused_on(409, "user_exists", "email");
    let same_mobile = json!({ "usertype": "rider", "firstName": "A", "lastName": "B", "mobile": "+1 (410) 555-0202", "email": "fresh@test.wayfare" });
    app.post("/api/v1/users", Some(&admin), same_mobile).await.refused_on(409, "user_exists", "mobile");
    // Nothing was added.
    let fresh = app.get("/api/v1/users/exists?email=fresh%40test.wayfare", Some(&admin)).await;
    assert_eq!(fresh.expect(200)["exists"], false);
}

#[tokio::test]
async fn adding_needs_a_contact_a_type_and_names() {
    let app = TestApp::demo().await;
    let admin = app.sign_in(ADMIN).await;
    let no_contact = json!({ "usertype": "rider", "firstName": "A", "lastName": "B" });
    app.post("/api/v1/users", Some(&admin), no_contact).await.refused_on(400, "email_or_mobile_issue", "contact");
    let bad_email = json!({ "usertype": "rider", "firstName": "A", "lastName": "B", "email": "not-an-email" });
    app.post("/api/v1/users", Some(&admin), bad_email).await.refused_on(400, "email_or_mobile_issue", "email");
    let no_type = json!({ "firstName": "A", "lastName": "B", "email": "a@test.wayfare" });
    app.post("/api/v1/users", Some(&admin), no_type).await.refused_on(400, "invalid_input", "usertype");
    let no_name = json!({ "usertype": "rider", "lastName": "B", "email": "a@test.wayfare" });
    app.post("/api/v1/users", Some(&admin), no_name).await.refused_on(400, "invalid_input", "firstName");
    let unknown_car = json!({ "usertype": "driver", "firstName": "A", "lastName": "B", "email": "a@test.wayfare", "carType": "Limo" });
    app.post("/api/v1/users", Some(&admin), unknown_car).await.refused_on(400, "invalid_input", "carType");
    app.post("/api/v1/users", Some(&admin), json!({ "usertype": "pilot" })).await.refused_on(
        400,
        "invalid_input",
        "body",
    );
}

#[tokio::test]
async fn drivers_a_fleet_admin_adds_belong_to_their_fleet() {
    // spec §6: new drivers they add get their id as fleetadmin
    let app = app_with_two_fleets().await;
    let fleet = app.sign_in(FLEET).await;
    let added = app.post("/api/v1/users", Some(&fleet), new_driver_body("nina@test.wayfare", "+14105556100")).await;
    let driver = added.expect(201);
    assert_eq!(driver["fleetadmin"], fleet_admin().id.to_string());
    assert_eq!((driver["carType"].as_str(), driver["vehicleNumber"].as_str()), (Some("Economy"), Some("MD-1234")));
    let listed = app.get("/api/v1/users?search=nina", Some(&fleet)).await;
    assert_eq!(emails_of(listed.expect(200)), vec!["nina@test.wayfare".to_string()]);

    // Only drivers, and only into their own fleet.
    let rider = json!({ "usertype": "rider", "firstName": "A", "lastName": "B", "email": "r@test.wayfare" });
    app.post("/api/v1/users", Some(&fleet), rider).await.refused(403, "not_allowed");
    let mut elsewhere = new_driver_body("elsewhere@test.wayfare", "+14105556101");
    elsewhere["fleetadmin"] = json!(other_fleet_admin().id);
    app.post("/api/v1/users", Some(&fleet), elsewhere).await.refused_on(403, "not_allowed", "fleetadmin");
}

#[tokio::test]
async fn an_admin_may_put_a_new_driver_in_a_fleet() {
    let app = app_with_two_fleets().await;
    let admin = app.sign_in(ADMIN).await;
    let mut body = new_driver_body("fleeted@test.wayfare", "+14105556200");
    body["fleetadmin"] = json!(other_fleet_admin().id);
    let added = app.post("/api/v1/users", Some(&admin), body).await;
    assert_eq!(added.expect(201)["fleetadmin"], other_fleet_admin().id.to_string());
    let unfleeted = app.post("/api/v1/users", Some(&admin), new_driver_body("solo@test.wayfare", "+14105556201")).await;
    assert!(unfleeted.expect(201)["fleetadmin"].is_null());
    let mut not_a_fleet = new_driver_body("odd@test.wayfare", "+14105556202");
    not_a_fleet["fleetadmin"] = json!(rider(1).id);
    app.post("/api/v1/users", Some(&admin), not_a_fleet).await.refused_on(400, "invalid_input", "fleetadmin");
}

#[tokio::test]
async fn an_account_added_as_not_approved_cannot_sign_in_until_approved() {
    let app = TestApp::demo().await;
    let admin = app.sign_in(ADMIN).await;
    let mut body = new_driver_body("pending@test.wayfare", "+14105556300");
    body["approved"] = json!(false);
    let added = app.post("/api/v1/users", Some(&admin), body).await;
    let id = id_of(added.expect(201));
    // A waiting driver signs in (issue #33) but only follows their application.
    let pending = app.sign_in("pending@test.wayfare").await;
    app.get("/api/v1/bookings", Some(&pending)).await.refused(403, "require_approval");

    let approved = app.post_empty(&format!("/api/v1/users/{id}/approve"), Some(&admin)).await;
    assert_eq!(approved.expect(200)["approved"], true);
    app.get("/api/v1/bookings", Some(&pending)).await.expect(200);
}

// ---- read and edit ----------------------------------------------------------------------

#[tokio::test]
async fn managers_read_the_accounts_they_manage() {
    let app = app_with_two_fleets().await;
    let admin = app.sign_in(ADMIN).await;
    let fleet = app.sign_in(FLEET).await;
    let read = app.get(&format!("/api/v1/users/{}", rider(2).id), Some(&admin)).await;
    assert_eq!(read.expect(200)["email"], "rider2@demo.wayfare");
    let own_driver = app.get(&format!("/api/v1/users/{}", driver(2).id), Some(&fleet)).await;
    assert_eq!(own_driver.expect(200)["email"], "driver2@demo.wayfare");
    // Another fleet's driver, an odd (fleetless) driver and a rider do not exist for them.
    for other in [other_fleet_driver().id, driver(1).id, rider(1).id] {
        app.get(&format!("/api/v1/users/{other}"), Some(&fleet)).await.refused(404, "not_found");
    }
    app.get(&format!("/api/v1/users/{}", UserId::from_u128(0xDEAD)), Some(&admin)).await.refused(404, "not_found");
    app.get("/api/v1/users/not-an-id", Some(&admin)).await.refused(404, "not_found");
}

#[tokio::test]
async fn an_edit_changes_names_and_details_but_never_the_contacts() {
    // spec §5: mobile and e-mail are editable only when adding
    let app = TestApp::demo().await;
    let admin = app.sign_in(ADMIN).await;
    let path = format!("/api/v1/users/{}", driver(3).id);
    let edit =
        json!({ "firstName": " Dario ", "vehicleNumber": "MD-3333", "carType": "XL", "bankAccount": "12345678" });
    let edited = patch(&app, &path, Some(&admin), edit).await;
    let user = edited.expect(200);
    assert_eq!((user["firstName"].as_str(), user["lastName"].as_str()), (Some("Dario"), Some("3")));
    assert_eq!((user["vehicleNumber"].as_str(), user["carType"].as_str()), (Some("MD-3333"), Some("XL")));
    assert_eq!(user["bankAccount"], "12345678");
    let stored = app.state.storage.user(driver(3).id).await.unwrap();
    assert_eq!(stored.firstName, "Dario");

    patch(&app, &path, Some(&admin), json!({ "email": "new@test.wayfare" })).await.refused_on(
        403,
        "contact_not_editable",
        "email",
    );
    patch(&app, &path, Some(&admin), json!({ "mobile": "+14105550000" })).await.refused_on(
        403,
        "contact_not_editable",
        "mobile",
    );
    // The table sending back the same contacts is no change.
    let same = json!({ "email": "DRIVER3@demo.wayfare", "mobile": "+1 410 555 0303", "lastName": "Three" });
    assert_eq!(patch(&app, &path, Some(&admin), same).await.expect(200)["lastName"], "Three");
    patch(&app, &path, Some(&admin), json!({ "usertype": "admin" })).await.refused_on(403, "not_allowed", "usertype");
    patch(&app, &path, Some(&admin), json!({ "firstName": " " })).await.refused_on(400, "invalid_input", "firstName");
    patch(&app, &path, Some(&admin), json!({ "carType": "Limo" })).await.refused_on(400, "invalid_input", "carType");
}

#[tokio::test]
async fn a_fleet_admin_edits_their_drivers_only_and_never_moves_them() {
    let app = app_with_two_fleets().await;
    let fleet = app.sign_in(FLEET).await;
    let mine = format!("/api/v1/users/{}", driver(2).id);
    assert_eq!(
        patch(&app, &mine, Some(&fleet), json!({ "vehicleModel": "Corolla" })).await.expect(200)["vehicleModel"],
        "Corolla"
    );
    let theirs = format!("/api/v1/users/{}", other_fleet_driver().id);
    patch(&app, &theirs, Some(&fleet), json!({ "vehicleModel": "Corolla" })).await.refused(404, "not_found");
    assert_ne!(app.state.storage.user(other_fleet_driver().id).await.unwrap().vehicleModel, "Corolla");
    patch(&app, &mine, Some(&fleet), json!({ "fleetadmin": other_fleet_admin().id })).await.refused_on(
        403,
        "not_allowed",
        "fleetadmin",
    );
    patch(&app, &mine, Some(&fleet), json!({ "fleetadmin": null })).await.refused_on(403, "not_allowed", "fleetadmin");
    // Their own account goes through the profile.
    patch(&app, &format!("/api/v1/users/{}", fleet.id), Some(&fleet), json!({ "firstName": "F" }))
        .await
        .refused(403, "not_allowed");
}

#[tokio::test]
async fn an_admin_moves_a_driver_between_fleets() {
    let app = app_with_two_fleets().await;
    let admin = app.sign_in(ADMIN).await;
    let path = format!("/api/v1/users/{}", driver(2).id);
    let moved = patch(&app, &path, Some(&admin), json!({ "fleetadmin": other_fleet_admin().id })).await;
    assert_eq!(moved.expect(200)["fleetadmin"], other_fleet_admin().id.to_string());
    let out = patch(&app, &path, Some(&admin), json!({ "fleetadmin": null })).await;
    assert!(out.expect(200)["fleetadmin"].is_null());
    let rider_path = format!("/api/v1/users/{}", rider(1).id);
    patch(&app, &rider_path, Some(&admin), json!({ "fleetadmin": fleet_admin().id })).await.refused_on(
        400,
        "invalid_input",
        "fleetadmin",
    );
}

#[tokio::test]
async fn withdrawing_approval_ends_the_accounts_access_and_takes_a_driver_offline() {
    let app = TestApp::demo().await;
    let admin = app.sign_in(ADMIN).await;
    let driver_session = app.sign_in("driver5@demo.wayfare").await;
    app.post("/api/v1/drivers/me/status", Some(&driver_session), json!({ "driverActiveStatus": true }))
        .await
        .expect(200);
    assert!(app.runtime().is_online(driver(5).id));
    let path = format!("/api/v1/users/{}", driver(5).id);
    assert_eq!(patch(&app, &path, Some(&admin), json!({ "approved": false })).await.expect(200)["approved"], false);
    assert!(!app.runtime().is_online(driver(5).id));
    app.get("/api/v1/bookings", Some(&driver_session)).await.refused(403, "require_approval");
    // Nobody locks themself out.
    patch(&app, &format!("/api/v1/users/{}", admin.id), Some(&admin), json!({ "approved": false })).await.refused_on(
        403,
        "not_allowed",
        "approved",
    );
}

#[tokio::test]
async fn a_car_type_change_takes_an_online_driver_offline() {
    let app = TestApp::demo().await;
    let admin = app.sign_in(ADMIN).await;
    app.runtime().driver_online(&driver(1)).await.unwrap();
    let path = format!("/api/v1/users/{}", driver(1).id);
    patch(&app, &path, Some(&admin), json!({ "vehicleNumber": "MD-0001" })).await.expect(200);
    assert!(app.runtime().is_online(driver(1).id), "a vehicle number changes nothing for dispatch");
    patch(&app, &path, Some(&admin), json!({ "carType": "Comfort" })).await.expect(200);
    assert!(!app.runtime().is_online(driver(1).id));
}

// ---- delete ---------------------------------------------------------------------------

#[tokio::test]
async fn an_admin_deletes_a_user_and_their_sessions() {
    let app = TestApp::demo().await;
    let admin = app.sign_in(ADMIN).await;
    let rider_session = app.sign_in("rider4@demo.wayfare").await;
    let deleted = delete(&app, &format!("/api/v1/users/{}", rider(4).id), Some(&admin)).await;
    assert_eq!(deleted.expect(200), &json!({ "deleted": true, "id": rider(4).id }));
    app.get(&format!("/api/v1/users/{}", rider(4).id), Some(&admin)).await.refused(404, "not_found");
    app.get("/api/v1/auth/me", Some(&rider_session)).await.refused(401, "not_logged_in");
    delete(&app, &format!("/api/v1/users/{}", rider(4).id), Some(&admin)).await.refused(404, "not_found");
}

#[tokio::test]
async fn an_admin_cannot_delete_themself() {
    let app = TestApp::demo().await;
    let admin = app.sign_in(ADMIN).await;
    delete(&app, &format!("/api/v1/users/{}", admin.id), Some(&admin)).await.refused(403, "not_allowed");
    // Another admin may.
    let second =
        json!({ "usertype": "admin", "firstName": "Second", "lastName": "Admin", "email": "admin2@test.wayfare" });
    let other_admin = app.post("/api/v1/users", Some(&admin), second).await;
    let other = app.sign_in("admin2@test.wayfare").await;
    assert_eq!(other.id, id_of(other_admin.expect(201)));
    delete(&app, &format!("/api/v1/users/{}", admin.id), Some(&other)).await.expect(200);
}

#[tokio::test]
async fn a_user_with_a_booking_in_progress_is_not_deleted() {
    let app = TestApp::with_settings(|settings| settings.autoDispatch = false).await;
    let admin = app.sign_in(ADMIN).await;
    let booking = app.booking_at(&rider(1), &driver(1), Stage::Accepted).await;
    for id in [rider(1).id, driver(1).id] {
        delete(&app, &format!("/api/v1/users/{id}"), Some(&admin)).await.refused(409, "user_has_active_bookings");
    }
    app.command(
        booking.id,
        wayfare_engine::booking::By::Admin(admin.id),
        wayfare_engine::booking::Command::Cancel { reason: "Other".into(), wallet_balance: None },
    )
    .await;
    delete(&app, &format!("/api/v1/users/{}", rider(1).id), Some(&admin)).await.expect(200);
}

#[tokio::test]
async fn a_fleet_admin_deletes_their_drivers_only() {
    let app = app_with_two_fleets().await;
    let fleet = app.sign_in(FLEET).await;
    delete(&app, &format!("/api/v1/users/{}", other_fleet_driver().id), Some(&fleet)).await.refused(404, "not_found");
    delete(&app, &format!("/api/v1/users/{}", rider(1).id), Some(&fleet)).await.refused(404, "not_found");
    app.runtime().driver_online(&driver(2)).await.unwrap();
    delete(&app, &format!("/api/v1/users/{}", driver(2).id), Some(&fleet)).await.expect(200);
    assert!(!app.runtime().is_online(driver(2).id));
    assert!(app.state.storage.user(other_fleet_driver().id).await.is_ok());
}

#[tokio::test]
async fn a_deleted_fleet_admins_drivers_leave_the_fleet() {
    let app = app_with_two_fleets().await;
    let admin = app.sign_in(ADMIN).await;
    delete(&app, &format!("/api/v1/users/{}", other_fleet_admin().id), Some(&admin)).await.expect(200);
    let driver = app.state.storage.user(other_fleet_driver().id).await.unwrap();
    assert_eq!(driver.fleetadmin, None);
    assert_eq!(driver.usertype, Role::Driver);
}

// ---- demo mode ---------------------------------------------------------------------------

#[tokio::test]
async fn demo_mode_refuses_adding_and_deleting_but_not_edits_and_approval() {
    // spec §5: without the guard, rider / driver / fleet admin / admin updates
    let app = TestApp::with_settings(|settings| settings.AllowCriticalEditsAdmin = false).await;
    let admin = app.sign_in(ADMIN).await;
    let fleet = app.sign_in(FLEET).await;
    let body = json!({ "usertype": "rider", "firstName": "A", "lastName": "B", "email": "demo-add@test.wayfare" });
    app.post("/api/v1/users", Some(&admin), body).await.refused(403, "demo_mode");
    app.post("/api/v1/users", Some(&fleet), new_driver_body("d@test.wayfare", "+14105556400"))
        .await
        .refused(403, "demo_mode");
    delete(&app, &format!("/api/v1/users/{}", rider(5).id), Some(&admin)).await.refused(403, "demo_mode");
    delete(&app, &format!("/api/v1/users/{}", driver(2).id), Some(&fleet)).await.refused(403, "demo_mode");
    assert!(app.state.storage.user(rider(5).id).await.is_ok());

    let path = format!("/api/v1/users/{}", rider(5).id);
    assert_eq!(patch(&app, &path, Some(&admin), json!({ "lastName": "Five" })).await.expect(200)["lastName"], "Five");
    app.post_empty(&format!("{path}/approve"), Some(&admin)).await.expect(200);
}

#[tokio::test]
async fn demo_mode_masks_other_peoples_contacts_in_the_tables() {
    // spec §6: contact data shows as hidden
    let app = TestApp::with_settings(|settings| settings.AllowCriticalEditsAdmin = false).await;
    let admin = app.sign_in(ADMIN).await;
    let riders = app.get("/api/v1/users?role=rider&search=rider1@demo.wayfare", Some(&admin)).await;
    let rider = &riders.expect(200)["items"][0];
    assert_eq!(rider["email"], "r***1@demo.wayfare");
    assert_eq!(rider["mobile"], "***01");
    let read = app.get(&format!("/api/v1/users/{}", driver(2).id), Some(&admin)).await;
    assert_eq!(read.expect(200)["email"], "d***2@demo.wayfare");
    let me = app.get(&format!("/api/v1/users/{}", admin.id), Some(&admin)).await;
    assert_eq!(me.expect(200)["email"], ADMIN, "nobody's own data is masked");
}
