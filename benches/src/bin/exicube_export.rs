//! Writes a Realtime Database export in the original product's shape (the
//! field names of spec §3 and §7, as `http/tests/fixtures/exicube/` and
//! `engine/src/exicube/` read them) for issue #38's import measure: a city
//! of riders, drivers and fleet admins with their bookings, tracking
//! points, wallet histories, withdraws, chats, SOS alerts, complaints,
//! saved addresses and notifications. Seeded: the same flags write the same
//! bytes.
//!
//! ```sh
//! cargo run --release -p wayfare-benches --bin exicube_export -- \
//!     --bookings 100000 --users 20000 --tracking 1000000 --out /tmp/exicube-city.json
//! ```
//!
//! Of the users, one is the admin, one in 1,000 a fleet admin, one in ten a
//! driver, the rest riders. Nine bookings in ten are finished (COMPLETE,
//! PAID or CANCELLED), the rest wait for a driver; the tracking points are
//! shared out over the bookings that had a driver. The JSON is written as
//! it is made (no tree in memory), numbers now and then as text, as the
//! original's clients wrote them.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::process::ExitCode;
use std::time::Instant;

/// 2023-11-14T22:13:20Z: every date is counted back from here, not from the
/// clock, so the file does not change from one day to the next.
const EPOCH_MS: i64 = 1_700_000_000_000;
const DAY_MS: i64 = 86_400_000;
const CITY: (f64, f64) = (22.5726, 88.3639);
const CAR_TYPES: [(&str, f64, f64); 3] = [("Economy", 10.0, 5.0), ("Comfort", 12.0, 8.0), ("Exclusive", 15.0, 10.0)];
const FIRST_NAMES: [&str; 12] =
    ["Rina", "Ravi", "Anita", "Debashis", "Dipa", "Sumit", "Priya", "Arjun", "Meera", "Kabir", "Farhan", "Tara"];
const LAST_NAMES: [&str; 8] = ["Roy", "Kumar", "Das", "Sen", "Ghosh", "Bose", "Khan", "Mitra"];
const PLACES: [&str; 10] = [
    "Esplanade",
    "Howrah Station",
    "Salt Lake",
    "Park Street",
    "Gariahat",
    "Dum Dum",
    "Behala",
    "Ballygunge",
    "New Town",
    "Kolkata Airport",
];

struct Plan {
    bookings: usize,
    users: usize,
    tracking: usize,
    seed: u64,
}

#[derive(Clone, Copy, PartialEq)]
enum Role {
    Admin,
    Fleet,
    Driver,
    Rider,
}

struct Person {
    key: String,
    role: Role,
    first: &'static str,
    last: &'static str,
    created: i64,
    fleet: Option<usize>,
    car_type: usize,
}

#[derive(Clone, Copy, PartialEq)]
enum Status {
    Complete,
    Paid,
    Cancelled,
    New,
}

#[derive(Clone, Copy, PartialEq)]
enum Payment {
    Cash,
    Card,
    Wallet,
}

struct Trip {
    key: String,
    reference: String,
    status: Status,
    rider: usize,
    driver: Option<usize>,
    car_type: usize,
    tripdate: i64,
    pickup: (f64, f64, usize),
    drop: (f64, f64, usize),
    /// Money in cents, so the wallet sums are exact.
    cost_cents: i64,
    payment: Payment,
    points: usize,
}

struct WalletLine {
    key: String,
    credit: bool,
    withdraw: bool,
    cents: i64,
    date: i64,
    tx_ref: String,
}

fn push_key(rng: &mut StdRng, prefix: char) -> String {
    const ALPHABET: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz";
    let mut key = String::with_capacity(20);
    key.push('-');
    key.push(prefix);
    for _ in 0..18 {
        key.push(char::from(ALPHABET[rng.random_range(0..ALPHABET.len())]));
    }
    key
}

fn uid(rng: &mut StdRng) -> String {
    const ALPHABET: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    (0..28).map(|_| char::from(ALPHABET[rng.random_range(0..ALPHABET.len())])).collect()
}

fn reference(rng: &mut StdRng) -> String {
    (0..6).map(|_| char::from(b'A' + rng.random_range(0..26u8))).collect()
}

fn spot(rng: &mut StdRng) -> (f64, f64, usize) {
    let lat = CITY.0 + rng.random_range(-0.12..0.12);
    let lng = CITY.1 + rng.random_range(-0.12..0.12);
    (lat, lng, rng.random_range(0..PLACES.len()))
}

fn money(cents: i64) -> String {
    let sign = if cents < 0 { "-" } else { "" };
    format!("{sign}{}.{:02}", cents.abs() / 100, cents.abs() % 100)
}

/// The people: admin first, then fleet admins, drivers and riders.
fn people(rng: &mut StdRng, plan: &Plan) -> Vec<Person> {
    let fleets = (plan.users / 1_000).max(1);
    let drivers = (plan.users / 10).max(1);
    let mut people = Vec::with_capacity(plan.users);
    for index in 0..plan.users {
        let role = if index == 0 {
            Role::Admin
        } else if index <= fleets {
            Role::Fleet
        } else if index <= fleets + drivers {
            Role::Driver
        } else {
            Role::Rider
        };
        let fleet = (role == Role::Driver && rng.random_bool(0.5)).then(|| 1 + rng.random_range(0..fleets));
        people.push(Person {
            key: uid(rng),
            role,
            first: FIRST_NAMES[rng.random_range(0..FIRST_NAMES.len())],
            last: LAST_NAMES[rng.random_range(0..LAST_NAMES.len())],
            created: EPOCH_MS - 720 * DAY_MS + rng.random_range(0..360 * DAY_MS),
            fleet,
            car_type: rng.random_range(0..CAR_TYPES.len()),
        });
    }
    people
}

fn trips(rng: &mut StdRng, plan: &Plan, people: &[Person]) -> Vec<Trip> {
    let drivers: Vec<usize> = (0..people.len()).filter(|index| people[*index].role == Role::Driver).collect();
    let riders: Vec<usize> = (0..people.len()).filter(|index| people[*index].role == Role::Rider).collect();
    let mut trips = Vec::with_capacity(plan.bookings);
    for index in 0..plan.bookings {
        let roll = rng.random_range(0..100);
        let status = match roll {
            0..75 => Status::Complete,
            75..83 => Status::Paid,
            83..98 => Status::Cancelled,
            _ => Status::New,
        };
        let rider = riders[rng.random_range(0..riders.len())];
        // A waiting booking has no driver; one in three cancelled had none yet.
        let driver = match status {
            Status::New => None,
            Status::Cancelled if rng.random_bool(0.33) => None,
            _ => Some(drivers[rng.random_range(0..drivers.len())]),
        };
        let car_type = driver.map_or_else(|| rng.random_range(0..CAR_TYPES.len()), |driver| people[driver].car_type);
        // Finished trips over the year before EPOCH_MS, in booking order;
        // waiting ones booked for later, in the days after it.
        let tripdate = match status {
            Status::New => EPOCH_MS + rng.random_range(DAY_MS..30 * DAY_MS),
            _ => EPOCH_MS - 365 * DAY_MS + (index as i64 * 365 * DAY_MS) / plan.bookings.max(1) as i64,
        };
        let (base, per_km) = (CAR_TYPES[car_type].1, CAR_TYPES[car_type].2);
        let km: f64 = rng.random_range(1.0..25.0);
        let cost_cents = ((base + per_km * km) * 100.0).round() as i64;
        let payment = match rng.random_range(0..10) {
            0..6 => Payment::Cash,
            6..8 => Payment::Card,
            _ => Payment::Wallet,
        };
        trips.push(Trip {
            key: push_key(rng, 'B'),
            reference: reference(rng),
            status,
            rider,
            driver,
            car_type,
            tripdate,
            pickup: spot(rng),
            drop: spot(rng),
            cost_cents,
            payment,
            points: 0,
        });
    }
    // The points, shared out as evenly as they go over the trips that had a driver.
    let tracked: Vec<usize> = (0..trips.len()).filter(|index| trips[*index].driver.is_some()).collect();
    if !tracked.is_empty() {
        for (position, trip) in tracked.iter().enumerate() {
            trips[*trip].points = plan.tracking / tracked.len() + usize::from(position < plan.tracking % tracked.len());
        }
    }
    trips
}

/// The driver's part of a trip (the rest is the platform's fee).
fn driver_share(cost_cents: i64) -> i64 {
    cost_cents * 85 / 100
}

/// Each user's wallet history: a paid trip debits a rider who paid by
/// wallet and credits a driver who was paid by card or wallet; riders
/// topped up beforehand; some drivers withdrew.
fn wallets(rng: &mut StdRng, people: &[Person], trips: &[Trip]) -> Vec<Vec<WalletLine>> {
    let mut lines: Vec<Vec<WalletLine>> = people.iter().map(|_| Vec::new()).collect();
    for trip in trips.iter().filter(|trip| matches!(trip.status, Status::Complete | Status::Paid)) {
        if trip.payment == Payment::Wallet {
            lines[trip.rider].push(WalletLine {
                key: push_key(rng, 'W'),
                credit: false,
                withdraw: false,
                cents: trip.cost_cents,
                date: trip.tripdate + 1_800_000,
                tx_ref: trip.key.clone(),
            });
        }
        if let Some(driver) = trip.driver.filter(|_| trip.payment != Payment::Cash) {
            lines[driver].push(WalletLine {
                key: push_key(rng, 'W'),
                credit: true,
                withdraw: false,
                cents: driver_share(trip.cost_cents),
                date: trip.tripdate + 1_800_001,
                tx_ref: trip.key.clone(),
            });
        }
    }
    for (index, history) in lines.iter_mut().enumerate() {
        let spent: i64 = history.iter().filter(|line| !line.credit).map(|line| line.cents).sum();
        if people[index].role == Role::Rider && spent > 0 {
            let first = history.iter().map(|line| line.date).min().unwrap_or(EPOCH_MS);
            history.push(WalletLine {
                key: push_key(rng, 'W'),
                credit: true,
                withdraw: false,
                cents: spent + rng.random_range(0..5_000),
                date: first - DAY_MS,
                tx_ref: "AdminCredit".to_string(),
            });
        }
        let earned: i64 = history.iter().filter(|line| line.credit).map(|line| line.cents).sum();
        if people[index].role == Role::Driver && earned > 10_000 && rng.random_bool(0.3) {
            history.push(WalletLine {
                key: push_key(rng, 'W'),
                credit: false,
                withdraw: true,
                cents: earned / 2,
                date: EPOCH_MS - DAY_MS,
                tx_ref: (EPOCH_MS - DAY_MS).to_string(),
            });
        }
        history.sort_by_key(|line| line.date);
    }
    lines
}

fn balance(history: &[WalletLine]) -> i64 {
    history.iter().map(|line| if line.credit { line.cents } else { -line.cents }).sum()
}

/// Writes JSON members separated by commas.
struct Members {
    first: bool,
}

impl Members {
    fn new() -> Self {
        Members { first: true }
    }

    fn next(&mut self, out: &mut impl Write) -> std::io::Result<()> {
        if !self.first {
            out.write_all(b",\n")?;
        }
        self.first = false;
        Ok(())
    }
}

fn write_catalogue(out: &mut impl Write) -> std::io::Result<()> {
    write!(
        out,
        r#""settings":{{"appName":"Bench Cabs","code":"INR","symbol":"₹","decimal":"2","otp_secure":false,"driver_approval":true,"bonus":25,"panic":"100","convert_to_mile":false,"CarHornRepeat":true,"CompanyName":"Bench Cabs","country":"India","driverRadius":8,"autoDispatch":true,"negativeBalance":false,"bank_fields":true,"RiderWithDraw":false,"realtime_drivers":false,"prepaid":false}},
"cancel_reason":[{{"label":"Unable to Contact Driver","value":0}},{{"label":"Driver is taking long time","value":1}},{{"label":"My reason is not listed","value":2}}],
"cartypes":{{"#
    )?;
    for (index, (name, base, per_km)) in CAR_TYPES.iter().enumerate() {
        if index > 0 {
            out.write_all(b",")?;
        }
        write!(
            out,
            r#""type{n}":{{"name":"{name}","base_fare":{base},"rate_per_unit_distance":"{per_km}","rate_per_hour":5,"min_fare":10,"convenience_fees":15,"convenience_fee_type":"percentage","fleet_admin_fee":5,"pos":{n},"extra_info":"Capacity: 4","cancelSlab":[{{"amount":10,"minsDelayed":2}},{{"amount":"15","minsDelayed":4}}]}}"#,
            n = index + 1
        )?;
    }
    out.write_all(b"},\n")?;
    write!(
        out,
        r#""promos":{{"promo1":{{"promo_name":"Welcome Ride","promo_code":"WELCOME50","promo_description":"50 off","promo_discount_type":"flat","promo_discount_value":50,"max_promo_discount_value":50,"min_order":100,"promo_validity":1893456000000,"promo_usage_limit":"500","user_avail":0}}}},
"notifications":{{"-Nnote1":{{"devicetype":"All","usertype":"All","title":"Service update","body":"We now serve the airport","createdAt":1697408000000}}}},
"languages":{{"lang1":{{"langName":"English","langLocale":"en","dateLocale":"en-gb","default":true}}}},
"payment_settings":{{"test":{{"active":true}}}}"#
    )
}

fn write_users(out: &mut impl Write, people: &[Person], wallets: &[Vec<WalletLine>]) -> std::io::Result<()> {
    out.write_all(b"\"users\":{\n")?;
    let mut members = Members::new();
    for (index, person) in people.iter().enumerate() {
        members.next(out)?;
        let usertype = match person.role {
            Role::Admin => "admin",
            Role::Fleet => "fleetadmin",
            Role::Driver => "driver",
            Role::Rider => "customer",
        };
        // One wallet in a hundred does not add up to its history (an opening entry).
        let mut cents = balance(&wallets[index]);
        if index % 100 == 7 {
            cents += 1_000;
        }
        let balance = if index % 3 == 0 { format!("\"{}\"", money(cents)) } else { money(cents) };
        write!(
            out,
            r#""{key}":{{"usertype":"{usertype}","firstName":"{first}","lastName":"{last}","email":"user{index}@bench.example","mobile":"+91{mobile}","approved":true,"createdAt":{created},"walletBalance":{balance},"userPlatform":"ANDROID","pushToken":"ExponentPushToken[{index}]""#,
            key = person.key,
            first = person.first,
            last = person.last,
            mobile = 9_000_000_000u64 + index as u64,
            created = person.created,
        )?;
        if person.role == Role::Driver {
            write!(
                out,
                r#","carType":"{car}","vehicleNumber":"WB {index:06}","vehicleMake":"Maruti","vehicleModel":"Dzire","driverActiveStatus":{active},"queue":false,"bankName":"SBI","bankCode":"SBIN0001","bankAccount":"{account}","location":{{"lat":{lat:.5},"lng":{lng:.5}}}"#,
                car = CAR_TYPES[person.car_type].0,
                active = index % 2 == 0,
                account = 1_000_000_000u64 + index as u64,
                lat = CITY.0 + (index % 97) as f64 * 0.001,
                lng = CITY.1 + (index % 89) as f64 * 0.001,
            )?;
            if let Some(fleet) = person.fleet {
                write!(out, r#","fleetadmin":"{}""#, people[fleet].key)?;
            }
        }
        // Older versions kept the history under the user too: one user in
        // fifty has it in both places (the import counts it once).
        if index % 50 == 3 && !wallets[index].is_empty() {
            out.write_all(b",\"walletHistory\":")?;
            write_history(out, &wallets[index])?;
        }
        out.write_all(b"}")?;
    }
    out.write_all(b"\n}")
}

fn write_history(out: &mut impl Write, history: &[WalletLine]) -> std::io::Result<()> {
    out.write_all(b"{")?;
    for (index, line) in history.iter().enumerate() {
        if index > 0 {
            out.write_all(b",")?;
        }
        let kind = if line.withdraw {
            "Withdraw"
        } else if line.credit {
            "Credit"
        } else {
            "Debit"
        };
        write!(
            out,
            r#""{key}":{{"type":"{kind}","amount":{amount},"date":{date},"txRef":"{tx_ref}"}}"#,
            key = line.key,
            amount = money(line.cents),
            date = line.date,
            tx_ref = line.tx_ref,
        )?;
    }
    out.write_all(b"}")
}

fn write_bookings(out: &mut impl Write, people: &[Person], trips: &[Trip]) -> std::io::Result<()> {
    out.write_all(b"\"bookings\":{\n")?;
    let mut members = Members::new();
    for trip in trips {
        members.next(out)?;
        let rider = &people[trip.rider];
        let status = match trip.status {
            Status::Complete => "COMPLETE",
            Status::Paid => "PAID",
            Status::Cancelled => "CANCELLED",
            Status::New => "NEW",
        };
        let (pickup, drop) = (trip.pickup, trip.drop);
        write!(
            out,
            r#""{key}":{{"status":"{status}","reference":"{reference}","carType":"{car}","customer":"{customer}","customer_name":"{first} {last}","customer_contact":"+91{mobile}","pickup":{{"lat":{plat:.6},"lng":{plng:.6},"add":"{padd}"}},"drop":{{"lat":{dlat:.6},"lng":{dlng:.6},"add":"{dadd}"}},"pickupAddress":"{padd}","dropAddress":"{dadd}","tripdate":{tripdate},"bookingDate":{booked},"bookLater":{later},"estimate":"{cost}","trip_cost":{cost},"otp":false"#,
            key = trip.key,
            reference = trip.reference,
            car = CAR_TYPES[trip.car_type].0,
            customer = rider.key,
            first = rider.first,
            last = rider.last,
            mobile = 9_000_000_000u64 + trip.rider as u64,
            plat = pickup.0,
            plng = pickup.1,
            padd = PLACES[pickup.2],
            dlat = drop.0,
            dlng = drop.1,
            dadd = PLACES[drop.2],
            tripdate = trip.tripdate,
            booked = if trip.status == Status::New { EPOCH_MS } else { trip.tripdate - 300_000 },
            later = trip.status == Status::New,
            cost = money(trip.cost_cents),
        )?;
        if let Some(driver) = trip.driver {
            let person = &people[driver];
            write!(
                out,
                r#","driver":"{key}","driver_name":"{first} {last}","driver_contact":"+91{mobile}","vehicle_number":"WB {driver:06}""#,
                key = person.key,
                first = person.first,
                last = person.last,
                mobile = 9_000_000_000u64 + driver as u64,
            )?;
            if let Some(fleet) = person.fleet {
                write!(out, r#","fleetadmin":"{}""#, people[fleet].key)?;
            }
        }
        match trip.status {
            Status::Complete | Status::Paid => {
                let share = driver_share(trip.cost_cents);
                let mode = match trip.payment {
                    Payment::Cash => "cash",
                    Payment::Card => "card",
                    Payment::Wallet => "wallet",
                };
                write!(
                    out,
                    r#","driver_share":"{share}","convenience_fees":{fees},"customer_paid":{cost},"payableAmount":{cost},"payment_mode":"{mode}","discount":0,"rating":5,"startTime":{start},"endTime":{end},"total_trip_time":1500,"trip_start_time":"10:4:59","distance":{km}"#,
                    share = money(share),
                    fees = money(trip.cost_cents - share),
                    cost = money(trip.cost_cents),
                    start = trip.tripdate + 300_000,
                    end = trip.tripdate + 1_800_000,
                    km = trip.cost_cents / 1_000,
                )?;
            }
            Status::Cancelled => {
                let fee = if trip.driver.is_some() { ",\"cancellationFee\":\"10\"" } else { "" };
                write!(out, r#","reason":"Driver is taking long time","cancelledBy":"customer"{fee}"#)?;
            }
            Status::New => {}
        }
        out.write_all(b"}")?;
    }
    out.write_all(b"\n}")
}

fn write_tracking(out: &mut impl Write, rng: &mut StdRng, trips: &[Trip]) -> std::io::Result<()> {
    out.write_all(b"\"tracking\":{\n")?;
    let mut members = Members::new();
    for trip in trips.iter().filter(|trip| trip.points > 0) {
        members.next(out)?;
        write!(out, r#""{}":{{"#, trip.key)?;
        let count = trip.points;
        for point in 0..count {
            if point > 0 {
                out.write_all(b",")?;
            }
            // ACCEPTED where the driver was, STARTED along the way, REACHED at the drop.
            let status = if point == 0 {
                "ACCEPTED"
            } else if point + 1 == count && count > 2 {
                "REACHED"
            } else {
                "STARTED"
            };
            let along = point as f64 / count.max(2) as f64;
            let lat = trip.pickup.0 + (trip.drop.0 - trip.pickup.0) * along + rng.random_range(-0.0002..0.0002);
            let lng = trip.pickup.1 + (trip.drop.1 - trip.pickup.1) * along + rng.random_range(-0.0002..0.0002);
            write!(
                out,
                r#""-T{key:018}":{{"at":{at},"status":"{status}","lat":{lat:.6},"lng":{lng:.6}}}"#,
                key = point,
                at = trip.tripdate + 60_000 + point as i64 * 5_000,
            )?;
        }
        out.write_all(b"}")?;
    }
    out.write_all(b"\n}")
}

fn write_wallets(out: &mut impl Write, people: &[Person], wallets: &[Vec<WalletLine>]) -> std::io::Result<()> {
    out.write_all(b"\"walletHistory\":{\n")?;
    let mut members = Members::new();
    for (person, history) in people.iter().zip(wallets).filter(|(_, history)| !history.is_empty()) {
        members.next(out)?;
        write!(out, r#""{}":"#, person.key)?;
        write_history(out, history)?;
    }
    out.write_all(b"\n}")
}

/// The rarer nodes, a few of each: withdraws behind the Withdraw entries,
/// chats on some trips, SOS alerts, complaints, saved addresses and the
/// pushes users were sent.
fn write_others(
    out: &mut impl Write,
    rng: &mut StdRng,
    people: &[Person],
    trips: &[Trip],
    wallets: &[Vec<WalletLine>],
) -> std::io::Result<()> {
    out.write_all(b"\"withdraws\":{\n")?;
    let mut members = Members::new();
    for (index, history) in wallets.iter().enumerate() {
        for line in history.iter().filter(|line| line.withdraw) {
            members.next(out)?;
            let person = &people[index];
            write!(
                out,
                r#""{key}":{{"uid":"{uid}","name":"{first} {last}","amount":{amount},"date":{date},"bankName":"SBI","bankCode":"SBIN0001","bankAccount":"{account}","processed":true,"processDate":{done}}}"#,
                key = push_key(rng, 'D'),
                uid = person.key,
                first = person.first,
                last = person.last,
                amount = money(line.cents),
                date = line.date,
                account = 1_000_000_000u64 + index as u64,
                done = line.date + DAY_MS / 2,
            )?;
        }
    }
    out.write_all(b"\n},\n\"chats\":{\n")?;
    let mut members = Members::new();
    for trip in trips.iter().step_by(20) {
        let Some(driver) = trip.driver else { continue };
        members.next(out)?;
        let (rider, driver) = (&people[trip.rider], &people[driver]);
        write!(
            out,
            r#""{booking}":{{"messages":{{"{r},{d}":{{"{m1}":{{"message":"I am at the gate","from":"{r}","msgDate":"11:14:2023","msgTime":"22:20","source":"customer","type":"msg"}},"{m2}":{{"message":"Coming","from":"{d}","msgDate":"11:14:2023","msgTime":"22:21","source":"driver","type":"msg"}}}}}}}}"#,
            booking = trip.key,
            r = rider.key,
            d = driver.key,
            m1 = push_key(rng, 'C'),
            m2 = push_key(rng, 'C'),
        )?;
    }
    out.write_all(b"\n},\n\"sos\":{\n")?;
    let mut members = Members::new();
    for trip in trips.iter().step_by(2_000) {
        members.next(out)?;
        let rider = &people[trip.rider];
        write!(
            out,
            r#""{key}":{{"bookingId":"{booking}","complainDate":{date},"user_name":"{first} {last}","contact":"+91{mobile}","user_type":"customer"}}"#,
            key = push_key(rng, 'S'),
            booking = trip.key,
            date = trip.tripdate + 600_000,
            first = rider.first,
            last = rider.last,
            mobile = 9_000_000_000u64 + trip.rider as u64,
        )?;
    }
    out.write_all(b"\n},\n\"complain\":{\n")?;
    let mut members = Members::new();
    for (index, person) in people.iter().enumerate().step_by(200) {
        members.next(out)?;
        write!(
            out,
            r#""{key}":{{"uid":"{uid}","subject":"Late pickup","body":"Waited 20 minutes","complainDate":{date},"firstName":"{first}","lastName":"{last}","email":"user{index}@bench.example","role":"customer","check":{check}}}"#,
            key = push_key(rng, 'K'),
            uid = person.key,
            date = EPOCH_MS - (index as i64 % 300) * DAY_MS,
            first = person.first,
            last = person.last,
            check = index % 400 == 0,
        )?;
    }
    out.write_all(b"\n},\n\"savedAddresses\":{\n")?;
    let mut members = Members::new();
    for person in people.iter().filter(|person| person.role == Role::Rider).step_by(5) {
        members.next(out)?;
        let (lat, lng, place) = spot(rng);
        write!(
            out,
            r#""{uid}":{{"{key}":{{"description":"Home, {place}","lat":{lat:.6},"lng":"{lng:.6}","count":{count}}}}}"#,
            uid = person.key,
            key = push_key(rng, 'A'),
            place = PLACES[place],
            count = rng.random_range(1..6),
        )?;
    }
    out.write_all(b"\n},\n\"userNotifications\":{\n")?;
    let mut members = Members::new();
    for (index, person) in people.iter().enumerate().step_by(10) {
        members.next(out)?;
        write!(
            out,
            r#""{uid}":{{"{key}":{{"dated":{date},"title":"Bench Cabs","msg":"Your driver is near"}}}}"#,
            uid = person.key,
            key = push_key(rng, 'N'),
            date = EPOCH_MS - (index as i64 % 100) * DAY_MS,
        )?;
    }
    out.write_all(b"\n}")
}

fn write_export(path: &str, plan: &Plan) -> std::io::Result<BTreeMap<&'static str, usize>> {
    let mut rng = StdRng::seed_from_u64(plan.seed);
    let people = people(&mut rng, plan);
    let trips = trips(&mut rng, plan, &people);
    let wallets = wallets(&mut rng, &people, &trips);
    let mut out = BufWriter::with_capacity(1 << 20, File::create(path)?);
    out.write_all(b"{\n")?;
    write_catalogue(&mut out)?;
    out.write_all(b",\n")?;
    write_users(&mut out, &people, &wallets)?;
    out.write_all(b",\n")?;
    write_bookings(&mut out, &people, &trips)?;
    out.write_all(b",\n")?;
    write_tracking(&mut out, &mut rng, &trips)?;
    out.write_all(b",\n")?;
    write_wallets(&mut out, &people, &wallets)?;
    out.write_all(b",\n")?;
    write_others(&mut out, &mut rng, &people, &trips, &wallets)?;
    out.write_all(b"\n}\n")?;
    out.flush()?;
    let mut counts = BTreeMap::new();
    counts.insert("users", people.len());
    counts.insert("bookings", trips.len());
    counts.insert("tracking points", trips.iter().map(|trip| trip.points).sum());
    counts.insert("wallet entries", wallets.iter().map(Vec::len).sum());
    Ok(counts)
}

fn main() -> ExitCode {
    let arguments: Vec<String> = std::env::args().skip(1).collect();
    let value = |flag: &str| -> Option<&str> {
        let position = arguments.iter().position(|argument| argument == flag)?;
        arguments.get(position + 1).map(String::as_str)
    };
    let number = |flag: &str, default: usize| value(flag).and_then(|text| text.parse().ok()).unwrap_or(default);
    let Some(out) = value("--out") else {
        eprintln!("usage: exicube_export --out FILE [--bookings N] [--users N] [--tracking N] [--seed N]");
        return ExitCode::from(2);
    };
    let plan = Plan {
        bookings: number("--bookings", 100_000),
        users: number("--users", 20_000).max(3),
        tracking: number("--tracking", 1_000_000),
        seed: number("--seed", 38) as u64,
    };
    let started = Instant::now();
    match write_export(out, &plan) {
        Ok(counts) => {
            let size = std::fs::metadata(out).map(|metadata| metadata.len()).unwrap_or(0);
            let counts: Vec<String> = counts.iter().map(|(what, count)| format!("{count} {what}")).collect();
            println!(
                "{out}: {} ({:.1} MB) in {:.1} s",
                counts.join(", "),
                size as f64 / 1e6,
                started.elapsed().as_secs_f64()
            );
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("exicube_export: writing {out}: {error}");
            ExitCode::FAILURE
        }
    }
}
