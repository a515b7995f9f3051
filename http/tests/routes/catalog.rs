//! What the app loads at start: settings (the public subset), car types, and
//! the health check.

use crate::support::*;
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn settings_show_the_spec_fields_to_everyone_and_dispatch_tuning_only_to_admins() {
    let app = TestApp::demo().await;
    let visitor = app.get("/api/v1/settings", None).await;
    let settings = visitor.expect(200);
    for field in [
        "appName",
        "appcat",
        "code",
        "symbol",
        "swipe_symbol",
        "decimal",
        "otp_secure",
        "driver_approval",
        "bonus",
        "walletMoneyField",
        "country",
        "restrictCountry",
        "AllowCountrySelection",
        "convert_to_mile",
        "RiderWithDraw",
        "driverRadius",
        "autoDispatch",
        "negativeBalance",
        "AllowCriticalEditsAdmin",
        "CompanyName",
        "CompanyAddress",
        "CompanyWebsite",
        "contact_email",
        "CompanyPhone",
    ] {
        assert!(settings.get(field).is_some(), "settings lack {field}: {settings}");
    }
    assert_eq!(settings["code"], "USD");
    assert_eq!(settings["decimal"], 2);
    assert_eq!(settings["bonus"], 5.0);
    assert_eq!(settings["appcat"], "taxi");
    let tuning = [
        "dispatchPolicy",
        "dispatchWaveSize",
        "dispatchOfferSeconds",
        "dispatchMaxWaves",
        "dispatchRadiusStep",
        "dispatchBatchSeconds",
    ];
    for field in tuning {
        assert!(settings.get(field).is_none(), "{field} is the admins' business");
    }
    for email in ["rider1@demo.wayfare", "driver1@demo.wayfare", "fleet@demo.wayfare"] {
        let session = app.sign_in(email).await;
        let seen = app.get("/api/v1/settings", Some(&session)).await;
        for field in tuning {
            assert!(seen.expect(200).get(field).is_none(), "{email} sees {field}");
        }
    }
    let admin = app.sign_in("admin@demo.wayfare").await;
    let seen = app.get("/api/v1/settings", Some(&admin)).await;
    let settings = seen.expect(200);
    for field in tuning {
        assert!(settings.get(field).is_some(), "admins see {field}");
    }
    assert_eq!(settings["dispatchPolicy"], "batch", "the default since issue #16");
    assert_eq!(settings["dispatchBatchSeconds"], 5);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn settings_answer_a_visitor_with_a_stale_token_like_anyone_else() {
    let app = TestApp::demo().await;
    let stale = Session { token: "0".repeat(64), id: rider(1).id, user: json!({}) };
    app.get("/api/v1/settings", Some(&stale)).await.expect(200);
    app.get("/api/v1/cartypes", Some(&stale)).await.expect(200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn car_types_list_the_demo_fleet_with_the_spec_fields() {
    let app = TestApp::demo().await;
    let reply = app.get("/api/v1/cartypes", None).await;
    let car_types = reply.expect(200).as_array().expect("a list").clone();
    let mut names: Vec<&str> = car_types.iter().map(|car| car["name"].as_str().unwrap()).collect();
    names.sort_unstable();
    assert_eq!(names, ["Comfort", "Economy", "XL"]);
    let economy = car_types.iter().find(|car| car["name"] == "Economy").unwrap();
    assert_eq!(economy["base_fare"], 2.5);
    assert_eq!(economy["rate_per_unit_distance"], 1.1);
    assert_eq!(economy["rate_per_hour"], 15.0);
    assert_eq!(economy["min_fare"], 7.0);
    assert_eq!(economy["convenience_fees"], 10.0);
    assert_eq!(economy["convenience_fee_type"], "percentage");
    for field in ["id", "image", "extra_info", "createdAt"] {
        assert!(economy.get(field).is_some(), "car types lack {field}");
    }
    assert_eq!(economy["parcelTypes"][1], json!({ "description": "Small box", "amount": 3.0 }));
    assert_eq!(economy["options"][0], json!({ "description": "Fragile handling", "amount": 2.0 }));
    assert_eq!(economy["cancelSlab"][0], json!({ "minsDelayed": 2, "amount": 2.0 }));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn health_is_ok() {
    let app = TestApp::demo().await;
    assert_eq!(app.get("/healthz", None).await.expect(200), &json!({ "status": "ok" }));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn settings_say_whether_the_server_runs_the_demo_city_and_no_one_can_set_it() {
    let plain = TestApp::demo().await;
    assert_eq!(plain.get("/api/v1/settings", None).await.expect(200)["demoCity"], false);
    let admin = plain.sign_in("admin@demo.wayfare").await;
    let changed =
        crate::admin_support::patch(&plain, "/api/v1/settings", Some(&admin), json!({ "demoCity": true })).await;
    assert!(changed.expect(200).get("demoCity").is_none(), "not a setting");
    assert_eq!(plain.get("/api/v1/settings", None).await.expect(200)["demoCity"], false);

    let mut setup = Setup::default();
    setup.config.demo = true;
    let demo = TestApp::start(setup).await;
    assert_eq!(demo.get("/api/v1/settings", None).await.expect(200)["demoCity"], true);
}
