//! The authorisation matrix of the file and payment routes (issue 6; DESIGN.md
//! invariant 6, spec §5 demo mode, §6 roles): every route × every caller
//! (logged out, rider 1, driver 4 of the demo fleet, the demo fleet admin, an
//! admin) × whose resource it is, each cell a real request. The expectations
//! are written out by hand from the rules (engine/src/permissions/ and the
//! routes' documentation), not computed with the server's own function:
//! - no session is 401 `not_logged_in`; a role that may never do it 403
//!   `not_allowed`, before any lookup;
//! - a resource the caller may not know exists (another fleet's driver, a
//!   booking not theirs, a missing id) is 404 `not_found`;
//! - licences are their driver's, the fleet admin's and admins'; parcel photos
//!   the assigned driver's to take and the booking's parties' to see;
//! - demo mode refuses the car type image (an admin-panel table write) and
//!   nothing else here.

use crate::files::{arrived_delivery, delivery_settings, download, economy, file_url, png, upload_image};
use crate::support::*;
use wayfare_engine::UserId;
use wayfare_http::config::PaymentsConfig;
use wayfare_http::demo::{ADMIN_EMAIL, FLEET_EMAIL};

#[derive(Debug, Clone, Copy, PartialEq)]
enum Caller {
    LoggedOut,
    Rider,
    Driver,
    FleetAdmin,
    Admin,
}

const CALLERS: [Caller; 5] = [Caller::LoggedOut, Caller::Rider, Caller::Driver, Caller::FleetAdmin, Caller::Admin];

/// The callers' sessions on one app (rider 1, driver 4, the demo fleet admin, the admin).
struct Sessions {
    rider: Session,
    driver: Session,
    fleet: Session,
    admin: Session,
}

impl Sessions {
    async fn of(app: &TestApp) -> Sessions {
        Sessions {
            rider: app.sign_in("rider1@demo.wayfare").await,
            driver: app.sign_in("driver4@demo.wayfare").await,
            fleet: app.sign_in(FLEET_EMAIL).await,
            admin: app.sign_in(ADMIN_EMAIL).await,
        }
    }

    fn get(&self, caller: Caller) -> Option<&Session> {
        match caller {
            Caller::LoggedOut => None,
            Caller::Rider => Some(&self.rider),
            Caller::Driver => Some(&self.driver),
            Caller::FleetAdmin => Some(&self.fleet),
            Caller::Admin => Some(&self.admin),
        }
    }
}

/// An expected answer: a success status, or a refusal with its key.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Expect {
    Pass(u16),
    Refuse(u16, &'static str),
}

const OK: Expect = Expect::Pass(200);
const SEE_OTHER: Expect = Expect::Pass(303);
const NO_SESSION: Expect = Expect::Refuse(401, "not_logged_in");
const NA: Expect = Expect::Refuse(403, "not_allowed");
const NF: Expect = Expect::Refuse(404, "not_found");
const DEMO: Expect = Expect::Refuse(403, "demo_mode");

#[track_caller]
fn check(reply: &Reply, expected: Expect, cell: &str) {
    match expected {
        Expect::Pass(status) => assert_eq!(reply.status.as_u16(), status, "{cell}: {}", reply.body),
        Expect::Refuse(status, key) => {
            assert_eq!((reply.status.as_u16(), reply.error_code()), (status, key), "{cell}: {}", reply.body)
        }
    }
}

fn row(expectations: [Expect; 5]) -> impl Iterator<Item = (Caller, Expect)> {
    CALLERS.into_iter().zip(expectations)
}

#[tokio::test]
async fn own_profile_photo_and_licence_uploads() {
    let app = TestApp::demo().await;
    let sessions = Sessions::of(&app).await;
    //                       logged out   rider  driver fleet admin
    for (caller, expected) in row([NO_SESSION, OK, OK, OK, OK]) {
        let reply = upload_image(&app, "/api/v1/users/me/profile-image", sessions.get(caller), png(2)).await;
        check(&reply, expected, &format!("profile image by {caller:?}"));
    }
    // Only drivers have a licence of their own.
    for (caller, expected) in row([NO_SESSION, NA, OK, NA, NA]) {
        let reply = upload_image(&app, "/api/v1/users/me/license-image", sessions.get(caller), png(2)).await;
        check(&reply, expected, &format!("own licence by {caller:?}"));
    }
}

#[tokio::test]
async fn a_drivers_licence_upload_by_whose_driver_it_is() {
    let app = TestApp::demo().await;
    app.insert_user(&other_fleet_driver()).await;
    let sessions = Sessions::of(&app).await;
    let targets: [(&str, UserId, [Expect; 5]); 4] = [
        //                                            logged out   rider  driver fleet admin
        ("driver 4 (demo fleet; the driver caller)", driver(4).id, [NO_SESSION, NA, OK, OK, OK]),
        ("another fleet's driver", other_fleet_driver().id, [NO_SESSION, NA, NF, NF, OK]),
        ("a rider", rider(2).id, [NO_SESSION, NA, NF, NF, NA]),
        ("nobody", UserId::from_u128(0xDEAD), [NO_SESSION, NA, NF, NF, NF]),
    ];
    for (whose, id, expectations) in targets {
        for (caller, expected) in row(expectations) {
            let reply =
                upload_image(&app, &format!("/api/v1/users/{id}/license-image"), sessions.get(caller), png(2)).await;
            check(&reply, expected, &format!("licence of {whose} by {caller:?}"));
        }
    }
}

#[tokio::test]
async fn car_type_images_for_admins_and_demo_mode() {
    for demo in [false, true] {
        let app = TestApp::with_settings(|settings| settings.AllowCriticalEditsAdmin = !demo).await;
        let sessions = Sessions::of(&app).await;
        let admin = if demo { DEMO } else { OK };
        let missing_admin = if demo { DEMO } else { NF };
        let targets = [
            //                                  logged out   rider driver fleet admin
            (economy().to_string(), "Economy", [NO_SESSION, NA, NA, NA, admin]),
            (UserId::from_u128(0xCA7).to_string(), "a missing car type", [NO_SESSION, NA, NA, NA, missing_admin]),
        ];
        for (id, whose, expectations) in targets {
            for (caller, expected) in row(expectations) {
                let reply =
                    upload_image(&app, &format!("/api/v1/cartypes/{id}/image"), sessions.get(caller), png(2)).await;
                check(&reply, expected, &format!("image of {whose} by {caller:?} (demo {demo})"));
            }
        }
    }
}

#[tokio::test]
async fn parcel_photo_uploads_by_whose_booking_it_is() {
    let app = TestApp::with_settings(delivery_settings).await;
    app.insert_user(&other_fleet_driver()).await;
    let sessions = Sessions::of(&app).await;
    let own = arrived_delivery(&app, &rider(1), &driver(4)).await;
    let theirs = arrived_delivery(&app, &rider(2), &other_fleet_driver()).await;
    // Offered to driver 4, nobody assigned yet.
    let admin = demo_user(ADMIN_EMAIL);
    let offered = app
        .runtime()
        .create_booking("Economy", trip_request(), &rider(1), wayfare_engine::booking::By::Admin(admin.id))
        .await
        .unwrap();
    app.offer(offered.id, &[&driver(4)]).await;
    let targets = [
        //                                                  logged out   rider driver fleet admin
        ("own (assigned to driver 4, ARRIVED)", own.to_string(), [NO_SESSION, NA, OK, NA, NA]),
        ("offered to driver 4 only", offered.id.to_string(), [NO_SESSION, NA, NA, NA, NA]),
        ("another fleet's", theirs.to_string(), [NO_SESSION, NA, NF, NA, NA]),
        ("missing", uuid::Uuid::now_v7().to_string(), [NO_SESSION, NA, NF, NA, NA]),
    ];
    for (whose, id, expectations) in targets {
        for (caller, expected) in row(expectations) {
            let parts = [
                crate::files::text_part("kind", "pickup_image"),
                crate::files::file_part("p.png", "image/png", png(2)),
            ];
            let reply =
                crate::files::upload(&app, &format!("/api/v1/bookings/{id}/images"), sessions.get(caller), &parts)
                    .await;
            check(&reply, expected, &format!("parcel photo of {whose} booking by {caller:?}"));
        }
    }
}

#[tokio::test]
async fn who_reads_each_kind_of_file() {
    let app = TestApp::with_settings(delivery_settings).await;
    app.insert_user(&other_fleet_admin()).await;
    let sessions = Sessions::of(&app).await;
    let other_fleet = app.sign_in(&other_fleet_admin().email).await;
    let other_rider = app.sign_in("rider2@demo.wayfare").await;
    let other_driver = app.sign_in("driver1@demo.wayfare").await;

    let profile = file_url(
        upload_image(&app, "/api/v1/users/me/profile-image", Some(&sessions.rider), png(2)).await.expect(200),
        "profile_image",
    );
    let licence = file_url(
        upload_image(&app, "/api/v1/users/me/license-image", Some(&sessions.driver), png(2)).await.expect(200),
        "licenseImage",
    );
    let car = file_url(
        upload_image(&app, &format!("/api/v1/cartypes/{}/image", economy()), Some(&sessions.admin), png(2))
            .await
            .expect(200),
        "image",
    );
    let booking = arrived_delivery(&app, &rider(1), &driver(4)).await;
    let parts =
        [crate::files::text_part("kind", "pickup_image"), crate::files::file_part("p.png", "image/png", png(2))];
    let parcel =
        crate::files::upload(&app, &format!("/api/v1/bookings/{booking}/images"), Some(&sessions.driver), &parts).await;
    let parcel = file_url(parcel.expect(200), "pickup_image");

    // (file, [logged out, rider 1, driver 4, demo fleet admin, admin], [another rider, another driver, another fleet admin])
    let table: [(&str, &str, [u16; 5], [u16; 3]); 4] = [
        ("profile photo", &profile, [200, 200, 200, 200, 200], [200, 200, 200]),
        ("car type image", &car, [200, 200, 200, 200, 200], [200, 200, 200]),
        ("driver 4's licence", &licence, [401, 403, 200, 200, 200], [403, 404, 404]),
        ("rider 1's parcel photo", &parcel, [401, 200, 200, 200, 200], [404, 404, 404]),
    ];
    for (what, url, mine, others) in table {
        for (caller, expected) in CALLERS.into_iter().zip(mine) {
            let (status, content_type, _) = download(&app, url, sessions.get(caller)).await;
            assert_eq!(status, expected, "{what} read by {caller:?}");
            if status == 200 {
                assert_eq!(content_type.as_deref(), Some("image/png"));
            }
        }
        for ((who, session), expected) in
            [("another rider", &other_rider), ("another driver", &other_driver), ("another fleet admin", &other_fleet)]
                .into_iter()
                .zip(others)
        {
            assert_eq!(download(&app, url, Some(session)).await.0, expected, "{what} read by {who}");
        }
    }
}

#[tokio::test]
async fn checkouts_and_the_test_page_by_whose_order_it_is_also_in_demo_mode() {
    for demo in [false, true] {
        let mut setup = Setup::default();
        setup.config.payments = PaymentsConfig { test_gateway: true, ..PaymentsConfig::default() };
        setup.settings.appcat = wayfare_engine::AppCategory::Delivery;
        setup.settings.AllowCriticalEditsAdmin = !demo;
        let app = TestApp::start(setup).await;
        let sessions = Sessions::of(&app).await;
        // Rider 1's prepaid delivery, awaiting payment.
        let booking = app.book(&rider(1)).await;
        let amount = booking.payableAmount.to_string();
        let form = |order: &str, amount: &str, payer: UserId| {
            [
                ("order_id", order.to_string()),
                ("amount", amount.to_string()),
                ("currency", "USD".to_string()),
                ("product_name", "Wayfare".to_string()),
                ("first_name", "A".to_string()),
                ("last_name", "B".to_string()),
                ("quantity", "1".to_string()),
                ("cust_id", payer.to_string()),
                ("mobile_no", String::new()),
                ("email", String::new()),
            ]
            .iter()
            .map(|(name, value)| format!("{name}={}", query_encode(value)))
            .collect::<Vec<_>>()
            .join("&")
        };
        let payer_of = |caller: Caller| sessions.get(caller).map_or(rider(1).id, |session| session.id);
        // A booking is paid by its rider only; a top-up by anyone for themself; not refused in demo mode.
        for (order, expectations) in [
            //                                   logged out   rider      driver fleet admin
            (booking.id.to_string(), [NO_SESSION, SEE_OTHER, NF, NF, NF]),
            ("wallet-1".to_string(), [NO_SESSION, SEE_OTHER, SEE_OTHER, SEE_OTHER, SEE_OTHER]),
        ] {
            for (caller, expected) in row(expectations) {
                let amount = if order.starts_with("wallet") { "10" } else { amount.as_str() };
                let body = form(&order, amount, payer_of(caller));
                let reply = app
                    .post_raw(
                        "/api/v1/payments/test/checkout",
                        sessions.get(caller),
                        "application/x-www-form-urlencoded",
                        body,
                    )
                    .await;
                check(&reply, expected, &format!("checkout of {order} by {caller:?} (demo {demo})"));
            }
        }
        // The test page and its buttons are the payer's only.
        let body = form(&booking.id.to_string(), &amount, sessions.rider.id);
        let reply = app
            .post_raw(
                "/api/v1/payments/test/checkout",
                Some(&sessions.rider),
                "application/x-www-form-urlencoded",
                body,
            )
            .await;
        let page = reply.header(axum::http::header::LOCATION).unwrap().to_string();
        for (caller, expected) in row([NO_SESSION, OK, NF, NF, NF]) {
            check(&app.get(&page, sessions.get(caller)).await, expected, &format!("test page by {caller:?}"));
        }
        for (caller, expected) in row([NO_SESSION, SEE_OTHER, NF, NF, NF]).collect::<Vec<_>>().into_iter().rev() {
            // The payer goes last: their press settles it.
            let reply =
                app.post_raw(&page, sessions.get(caller), "application/x-www-form-urlencoded", "action=pay").await;
            check(&reply, expected, &format!("pay pressed by {caller:?} (demo {demo})"));
        }
    }
}
