//! The demo city (DESIGN.md contract): Baltimore, seeded once — an admin, a
//! fleet admin, twenty riders, twenty approved drivers spread over the city,
//! car types with realistic rates, cancellation reasons and the test payment
//! gateway. Running it again on the same data changes nothing. The number
//! of drivers and the dispatch policy can be chosen for a fresh database
//! (`DemoSeedConfig`): the realtime test and load generator use that.
//!
//! The people's accounts (`rider1`–`rider3`, `driver1`–`driver3`) are for a
//! person to sign in with; every other demo rider and driver is marked
//! `demo` and is played by the living demo ([`living`], issue #35).

pub mod history;
pub mod living;

use crate::config::DemoSeedConfig;
use rust_decimal::Decimal;
use wayfare_engine::{
    AmountType, CancelSlab, CarType, CarTypeId, LatLng, PaymentProvider, PricedChoice, RegType, Role, Settings, User,
    UserId,
};
use wayfare_storage::Storage;

pub const ADMIN_EMAIL: &str = "admin@demo.wayfare";
pub const FLEET_EMAIL: &str = "fleet@demo.wayfare";
pub const RIDERS: u32 = 20;
/// Riders and drivers numbered up to this are the people's: never played.
pub const PEOPLE: u32 = 3;
/// The middle of the demo map extract (east of the Inner Harbor, by Fells
/// Point); every demo driver stands inside the extract.
pub const CENTRE: LatLng = LatLng { lat: 39.2860, lng: -76.5800 };

/// Stable ids, so a re-seed finds what it made.
fn demo_id(kind: u128, number: u128) -> UserId {
    UserId::from_u128(0x0000_0000_0000_7000_8000_d000_0000_0000 | (kind << 32) | number)
}

pub fn settings() -> Settings {
    Settings {
        appName: "Wayfare".into(),
        code: "USD".into(),
        symbol: "$".into(),
        decimal: 2,
        otp_secure: true,
        driver_approval: true,
        bonus: Decimal::new(5, 0),
        country: "United States".into(),
        restrictCountry: "us".into(),
        autoDispatch: true,
        driverRadius: 10.0,
        AllowCriticalEditsAdmin: true,
        CompanyName: "Wayfare Demo".into(),
        CompanyAddress: "401 Light St, Baltimore, MD 21202".into(),
        CompanyWebsite: "https://wayfare.example".into(),
        contact_email: "hello@demo.wayfare".into(),
        CompanyPhone: "+1 410 555 0100".into(),
        ..Settings::default()
    }
}

fn car(number: u128, name: &str, base: i64, per_km: i64, per_hour: i64, min: i64, extra: &str) -> CarType {
    CarType {
        id: CarTypeId::from_u128(0x0000_0000_0000_7000_8000_ca00_0000_0000 | number),
        name: name.into(),
        image: String::new(),
        base_fare: Decimal::new(base, 2),
        rate_per_unit_distance: Decimal::new(per_km, 2),
        rate_per_hour: Decimal::new(per_hour, 2),
        min_fare: Decimal::new(min, 2),
        convenience_fees: Decimal::new(10, 0),
        convenience_fee_type: AmountType::Percentage,
        extra_info: extra.into(),
        createdAt: 0,
        parcelTypes: vec![
            PricedChoice { description: "Envelope".into(), amount: Decimal::new(0, 0) },
            PricedChoice { description: "Small box".into(), amount: Decimal::new(300, 2) },
        ],
        options: vec![PricedChoice { description: "Fragile handling".into(), amount: Decimal::new(200, 2) }],
        cancelSlab: vec![
            CancelSlab { minsDelayed: 2, amount: Decimal::new(200, 2) },
            CancelSlab { minsDelayed: 5, amount: Decimal::new(500, 2) },
        ],
        optionRequired: false,
    }
}

pub fn car_types() -> Vec<CarType> {
    vec![
        car(1, "Economy", 250, 110, 1500, 700, "Up to 4 riders, everyday rides"),
        car(2, "Comfort", 350, 150, 1800, 1000, "Newer cars with extra legroom"),
        car(3, "XL", 450, 190, 2400, 1400, "Up to 6 riders"),
    ]
}

fn person(id: UserId, role: Role, first: &str, last: &str, email: &str, mobile: &str) -> User {
    let mut user = User::new(id, role, 0);
    user.firstName = first.into();
    user.lastName = last.into();
    user.email = email.into();
    user.mobile = mobile.into();
    user.regType = if role == Role::Admin { RegType::Admin } else { RegType::Email };
    user.approved = true;
    user.referralId = referral(id);
    user
}

/// A demo rider or driver numbered `number`: played by the living demo
/// unless it is one of the people's accounts.
fn numbered(mut user: User, number: u32) -> User {
    user.demo = number > PEOPLE;
    user
}

/// Five capital letters (spec §3), unique per demo id: the kind's letter and
/// the number in base 26.
fn referral(id: UserId) -> String {
    let raw = id.0.as_u128();
    let kind = ((raw >> 32) & 0xff) as u8;
    let mut number = (raw & 0xffff_ffff) as u32;
    let mut code = String::from(char::from(b'A' + kind % 26));
    for _ in 0..4 {
        code.push(char::from(b'A' + (number % 26) as u8));
        number /= 26;
    }
    code
}

/// Twenty spots spread over the city: rings around downtown.
fn driver_spot(number: u32) -> LatLng {
    let ring = 0.5 + f64::from(number % 4) * 0.6; // km
    let angle = f64::from(number) * 2.399_963; // the golden angle spreads them evenly
    let lat = CENTRE.lat + ring * angle.cos() / 111.195;
    let lng = CENTRE.lng + ring * angle.sin() / (111.195 * CENTRE.lat.to_radians().cos());
    LatLng::new(lat, lng)
}

pub fn users() -> Vec<User> {
    users_with(DemoSeedConfig::DEFAULT_DRIVERS)
}

/// The demo people with `drivers` drivers; past the twentieth they keep
/// being spread over the same rings around the centre.
pub fn users_with(drivers: u32) -> Vec<User> {
    let mut users = vec![
        person(demo_id(1, 1), Role::Admin, "Ada", "Admin", ADMIN_EMAIL, "+14105550101"),
        person(demo_id(2, 1), Role::Fleetadmin, "Fran", "Fleet", FLEET_EMAIL, "+14105550102"),
    ];
    let fleet = demo_id(2, 1);
    for number in 1..=RIDERS {
        let email = format!("rider{number}@demo.wayfare");
        let rider = person(
            demo_id(3, u128::from(number)),
            Role::Rider,
            "Rider",
            &number.to_string(),
            &email,
            &format!("+1410555{:04}", 200 + number),
        );
        users.push(numbered(rider, number));
    }
    let kinds = car_types();
    for number in 1..=drivers {
        let email = format!("driver{number}@demo.wayfare");
        let mut driver = person(
            demo_id(4, u128::from(number)),
            Role::Driver,
            "Driver",
            &number.to_string(),
            &email,
            &format!("+1410555{:04}", 300 + number),
        );
        driver.carType = Some(kinds[(number as usize - 1) % kinds.len()].name.clone());
        driver.vehicleMake = ["Toyota", "Honda", "Ford", "Hyundai"][number as usize % 4].into();
        driver.vehicleModel = ["Camry", "Accord", "Explorer", "Sonata"][number as usize % 4].into();
        driver.vehicleNumber = format!("MD-{:04}", 7000 + number);
        driver.location = Some(driver_spot(number));
        // Half the fleet belongs to the demo fleet admin.
        if number % 2 == 0 {
            driver.fleetadmin = Some(fleet);
        }
        users.push(numbered(driver, number));
    }
    users
}

pub fn cancel_reasons() -> Vec<String> {
    ["Driver is taking too long", "Changed my plans", "Booked by mistake", "Found another ride", "Other"]
        .into_iter()
        .map(String::from)
        .collect()
}

/// Seeds what is missing; never overwrites what exists.
pub async fn seed(storage: &dyn Storage) -> anyhow::Result<()> {
    seed_with(storage, &DemoSeedConfig::default()).await.map(|_| ())
}

/// Demo mode follows the configuration at every start (issue #34): the
/// settings API cannot switch it, so the stored flag is set from here.
pub async fn apply_demo_mode(storage: &dyn Storage, demo_mode: bool, now: i64) -> anyhow::Result<()> {
    let mut settings = storage.settings().await?.unwrap_or_default();
    if settings.demo_mode() == demo_mode {
        return Ok(());
    }
    tracing::info!(demo_mode, "demo mode set by the configuration");
    settings.AllowCriticalEditsAdmin = !demo_mode;
    storage.save_settings(&settings, now).await?;
    Ok(())
}

/// Seeds the demo city with `options`' size and dispatch policy.
/// True when it seeded the city now (a fresh database), false when it was there.
pub async fn seed_with(storage: &dyn Storage, options: &DemoSeedConfig) -> anyhow::Result<bool> {
    crate::messages::seed_languages(storage, 0).await?;
    if storage.user_by_email(ADMIN_EMAIL).await?.is_some() {
        tracing::info!("demo city already seeded");
        return Ok(false);
    }
    if storage.settings().await?.is_none() {
        let settings = Settings {
            dispatchPolicy: options.dispatch_policy,
            AllowCriticalEditsAdmin: !options.demo_mode,
            livingDemo: options.living,
            ..settings()
        };
        storage.save_settings(&settings, 0).await?;
    }
    for car_type in car_types() {
        if storage.car_type_by_name(&car_type.name).await.is_err() {
            storage.save_car_type(&car_type, 0).await?;
        }
    }
    if storage.cancel_reasons().await?.is_empty() {
        storage.save_cancel_reasons(&cancel_reasons(), 0).await?;
    }
    if storage.payment_providers().await?.is_empty() {
        storage
            .save_payment_providers(
                &[PaymentProvider { name: "test".into(), link: "/api/v1/payments/test/checkout".into() }],
                0,
            )
            .await?;
    }
    for mut user in users_with(options.drivers) {
        if storage.user_by_email(&user.email).await?.is_some() {
            continue;
        }
        // A database filled by other means (the benchmarks' city) may hold a
        // demo person's code already: draw another, as sign-up does.
        let mut attempts = 0;
        loop {
            match storage.insert_user(&user).await {
                Ok(()) => break,
                Err(wayfare_storage::StorageError::Duplicate("referral")) if attempts < 5 => {
                    attempts += 1;
                    user.referralId = wayfare_engine::generate::referral_code(&mut rand::rng());
                }
                Err(error) => return Err(error.into()),
            }
        }
    }
    tracing::info!(riders = RIDERS, drivers = options.drivers, dispatch_policy = ?options.dispatch_policy, "demo city seeded");
    Ok(true)
}

/// The key the demo city seals gateway secrets with when the configuration
/// names none: made once, kept in the data directory (readable by the
/// server's user only), so the demo's saved secrets survive a restart.
pub fn secrets_key(data_dir: &std::path::Path) -> std::io::Result<String> {
    use std::io::Write as _;
    use std::os::unix::fs::OpenOptionsExt as _;
    let path = data_dir.join("demo-secrets.key");
    if let Ok(key) = std::fs::read_to_string(&path) {
        return Ok(key.trim().to_string());
    }
    let mut bytes = [0u8; 32];
    ring::rand::SecureRandom::fill(&ring::rand::SystemRandom::new(), &mut bytes)
        .map_err(|_| std::io::Error::other("no randomness for the demo's secrets key"))?;
    let key = hex::encode(bytes);
    let mut file = std::fs::OpenOptions::new().write(true).create_new(true).mode(0o600).open(&path)?;
    file.write_all(key.as_bytes())?;
    Ok(key)
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_demo_secrets_key_is_made_once_and_kept_private() {
        use std::os::unix::fs::PermissionsExt as _;
        let directory = tempfile::tempdir().unwrap();
        let key = super::secrets_key(directory.path()).unwrap();
        assert!(crate::payments::secrets::SecretsKey::from_hex(&key).is_ok(), "{key}");
        assert_eq!(super::secrets_key(directory.path()).unwrap(), key, "the same after a restart");
        let mode = std::fs::metadata(directory.path().join("demo-secrets.key")).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }

    use super::*;
    use wayfare_engine::geo;

    #[test]
    fn demo_people_have_unique_ids_emails_and_referral_codes() {
        let users = users();
        assert_eq!(users.len(), 2 + RIDERS as usize + DemoSeedConfig::DEFAULT_DRIVERS as usize);
        let ids: std::collections::BTreeSet<_> = users.iter().map(|user| user.id).collect();
        let emails: std::collections::BTreeSet<_> = users.iter().map(|user| user.email.clone()).collect();
        let referrals: std::collections::BTreeSet<_> = users.iter().map(|user| user.referralId.clone()).collect();
        assert_eq!(ids.len(), users.len());
        assert_eq!(emails.len(), users.len());
        assert_eq!(referrals.len(), users.len());
        assert!(emails.contains("driver20@demo.wayfare") && emails.contains("rider5@demo.wayfare"));
    }

    #[test]
    fn a_large_demo_keeps_ids_emails_and_referral_codes_unique() {
        let users = users_with(2_000);
        assert_eq!(users.len(), 2 + RIDERS as usize + 2_000);
        let ids: std::collections::BTreeSet<_> = users.iter().map(|user| user.id).collect();
        let emails: std::collections::BTreeSet<_> = users.iter().map(|user| user.email.clone()).collect();
        let referrals: std::collections::BTreeSet<_> = users.iter().map(|user| user.referralId.clone()).collect();
        assert_eq!((ids.len(), emails.len(), referrals.len()), (users.len(), users.len(), users.len()));
        assert!(emails.contains("driver2000@demo.wayfare"));
    }

    #[tokio::test]
    async fn demo_mode_follows_the_configuration_at_every_start() {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}", dir.path().join("demo.db").display());
        let storage = wayfare_storage::open(&url).await.unwrap();
        // A fresh database stays without settings when demo mode is off.
        apply_demo_mode(storage.as_ref(), false, 0).await.unwrap();
        assert!(storage.settings().await.unwrap().is_none());
        apply_demo_mode(storage.as_ref(), true, 1).await.unwrap();
        assert!(storage.settings().await.unwrap().unwrap().demo_mode());
        // The next start without it leaves demo mode, keeping the other settings.
        let mut settings = storage.settings().await.unwrap().unwrap();
        settings.appName = "Harbour Cabs".into();
        storage.save_settings(&settings, 2).await.unwrap();
        apply_demo_mode(storage.as_ref(), false, 3).await.unwrap();
        let settings = storage.settings().await.unwrap().unwrap();
        assert!(!settings.demo_mode());
        assert_eq!(settings.appName, "Harbour Cabs");
    }

    #[tokio::test]
    async fn a_demo_seeded_in_demo_mode_refuses_critical_edits_and_a_plain_one_allows_them() {
        for demo_mode in [true, false] {
            let dir = tempfile::tempdir().unwrap();
            let url = format!("sqlite://{}", dir.path().join("demo.db").display());
            let storage = wayfare_storage::open(&url).await.unwrap();
            seed_with(storage.as_ref(), &DemoSeedConfig { drivers: 1, demo_mode, ..DemoSeedConfig::default() })
                .await
                .unwrap();
            let settings = storage.settings().await.unwrap().unwrap();
            assert_eq!(settings.AllowCriticalEditsAdmin, !demo_mode);
            assert_eq!(settings.demo_mode(), demo_mode);
        }
    }

    #[tokio::test]
    async fn a_database_whose_users_hold_demo_referral_codes_still_seeds() {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}", dir.path().join("demo.db").display());
        let storage = wayfare_storage::open(&url).await.unwrap();
        // Someone already has the code the demo's first rider would get.
        let rider = users().into_iter().find(|user| user.usertype == Role::Rider).unwrap();
        let mut other = User::new(UserId(uuid::Uuid::now_v7()), Role::Rider, 0);
        other.email = "someone@example.com".into();
        other.referralId = rider.referralId.clone();
        storage.insert_user(&other).await.unwrap();
        seed_with(storage.as_ref(), &DemoSeedConfig { drivers: 1, ..DemoSeedConfig::default() }).await.unwrap();
        let seeded = storage.user_by_email(&rider.email).await.unwrap().expect("the demo rider");
        assert_ne!(seeded.referralId, rider.referralId);
        assert_eq!(seeded.referralId.len(), 5);
    }

    #[test]
    fn demo_drivers_are_spread_over_the_city() {
        for user in users().iter().filter(|user| user.usertype == Role::Driver) {
            let distance = geo::distance_km(CENTRE, user.location.unwrap());
            assert!((0.4..2.5).contains(&distance), "{distance}");
            assert!(user.approved && user.carType.is_some());
        }
    }
}
