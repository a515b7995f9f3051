//! A synthetic Baltimore for the storage benchmarks: riders, drivers, fleet
//! admins and bookings, generated deterministically and by index, so the
//! load tool and the benchmark agree on every id and name without sharing
//! state (`plan.booking(k)` is the same booking wherever it is computed).
//!
//! The shape aims at realistic selectivity for search and realistic sizes for
//! lists: surnames follow US frequencies (Smith is about 0.8% of people) with
//! a long tail of rare ones, streets are Baltimore's with a few very common
//! ones, 1% of riders book 10% of the trips, most bookings are COMPLETE, some
//! CANCELLED (a third of them with a fee), a few thousand are still active,
//! and trip dates spread over two years, inserted in time order.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use rust_decimal::Decimal;
use serde_json::json;
use uuid::Uuid;
use wayfare_engine::{Booking, BookingId, BookingStatus, LatLng, Millis, Role, User, UserId, UserPlatform};

/// 2026-01-01T00:00:00Z: the data ends here.
pub const END: Millis = 1_767_225_600_000;
/// Two years of trips.
pub const SPAN: Millis = 2 * 365 * 86_400_000;

/// How much to generate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Plan {
    pub bookings: u64,
    pub riders: u64,
    pub drivers: u64,
    pub fleets: u64,
    /// The last bookings, in time order, are still active.
    pub active: u64,
    pub seed: u64,
}

impl Plan {
    /// The benchmark's size: 1,000,000 bookings, 100,000 riders, 10,000
    /// drivers in 50 fleets.
    pub const FULL: Plan =
        Plan { bookings: 1_000_000, riders: 100_000, drivers: 10_000, fleets: 50, active: 5_000, seed: 2026 };

    /// A small city for smoke runs (the benchmark run as a test).
    pub const SMALL: Plan = Plan { bookings: 5_000, riders: 500, drivers: 50, fleets: 5, active: 50, seed: 2026 };

    /// Riders who book much more than others: the first 1% of riders.
    pub fn heavy_riders(&self) -> u64 {
        (self.riders / 100).max(1)
    }

    pub fn rider(&self, index: u64) -> User {
        let mut random = self.random("rider", index);
        let created_at = END - SPAN - 86_400_000 + (index * 997) as i64 % SPAN;
        let mut user = User::new(UserId(uuid_v7(created_at, &mut random)), Role::Rider, created_at);
        let (first, last) = person(&mut random);
        user.email = format!("{}.{}.{index}@example.com", first.to_lowercase(), last.to_lowercase().replace(' ', ""));
        user.firstName = first;
        user.lastName = last;
        user.mobile = format!("+1 410 {:07}", index);
        user.referralId = referral(index);
        user.approved = true;
        user.pushToken = Some(format!("push-rider-{index}"));
        user.userPlatform = [UserPlatform::Ios, UserPlatform::Android, UserPlatform::Web][random.random_range(0..3)];
        user
    }

    pub fn rider_id(&self, index: u64) -> UserId {
        self.rider(index).id
    }

    pub fn fleetadmin(&self, index: u64) -> User {
        let mut random = self.random("fleet", index);
        let created_at = END - SPAN - 2 * 86_400_000;
        let mut user = User::new(UserId(uuid_v7(created_at, &mut random)), Role::Fleetadmin, created_at);
        user.firstName = format!("Fleet {}", index + 1);
        user.lastName = "Cabs".into();
        user.email = format!("fleet{index}@example.com");
        user.referralId = referral(self.riders + self.drivers + index);
        user.approved = true;
        user
    }

    /// Four drivers in five belong to a fleet.
    pub fn fleet_of_driver(&self, index: u64) -> Option<u64> {
        (!index.is_multiple_of(5) && self.fleets > 0).then(|| (index / 5) % self.fleets)
    }

    pub fn driver(&self, index: u64) -> User {
        let mut random = self.random("driver", index);
        let created_at = END - SPAN - 86_400_000 + (index * 7919) as i64 % SPAN;
        let mut user = User::new(UserId(uuid_v7(created_at, &mut random)), Role::Driver, created_at);
        let (first, last) = person(&mut random);
        user.email = format!("driver.{index}@example.com");
        user.firstName = first;
        user.lastName = last;
        user.mobile = format!("+1 443 {:07}", index);
        user.referralId = referral(self.riders + index);
        user.approved = random.random_bool(0.95);
        user.fleetadmin = self.fleet_of_driver(index).map(|fleet| self.fleetadmin(fleet).id);
        user.carType = Some(["Sedan", "SUV", "Van"][random.random_range(0..3)].into());
        user.vehicleMake = ["Toyota", "Honda", "Ford", "Hyundai"][random.random_range(0..4)].into();
        user.vehicleModel = "Model".into();
        user.vehicleNumber = format!("MD{:05}", index);
        user.driverActiveStatus = random.random_bool(0.2);
        user.location = Some(baltimore_point(&mut random));
        user.pushToken = Some(format!("push-driver-{index}"));
        user.userPlatform = UserPlatform::Android;
        user
    }

    /// The trip date of booking `index`: in index order over the two years,
    /// give or take a few hours.
    pub fn tripdate(&self, index: u64) -> Millis {
        let base = END - SPAN + (u128::from(index) * SPAN as u128 / u128::from(self.bookings.max(1))) as i64;
        let jitter = (splitmix(self.seed ^ index.wrapping_mul(31)) % 14_400_000) as i64;
        base + jitter - 7_200_000
    }

    pub fn booking(&self, index: u64) -> Booking {
        let mut random = self.random("booking", index);
        let tripdate = self.tripdate(index);
        let customer_index = if random.random_bool(0.1) {
            random.random_range(0..self.heavy_riders())
        } else {
            random.random_range(0..self.riders)
        };
        let customer = self.rider(customer_index);
        let active = index >= self.bookings.saturating_sub(self.active);
        let status = if active {
            [
                BookingStatus::New,
                BookingStatus::Accepted,
                BookingStatus::Arrived,
                BookingStatus::Started,
                BookingStatus::Reached,
                BookingStatus::Pending,
                BookingStatus::PaymentPending,
            ][random.random_range(0..7)]
        } else {
            match random.random_range(0..100) {
                0..89 => BookingStatus::Complete,
                89..91 => BookingStatus::Paid,
                _ => BookingStatus::Cancelled,
            }
        };
        // Half the cancellations happened before any driver accepted.
        let unassigned = matches!(status, BookingStatus::New | BookingStatus::PaymentPending)
            || (status == BookingStatus::Cancelled && random.random_bool(0.5));
        let has_driver = !unassigned;
        let driver_index = random.random_range(0..self.drivers);
        let pickup = baltimore_point(&mut random);
        let drop = baltimore_point(&mut random);
        let pickup_address = address(&mut random);
        let drop_address = address(&mut random);
        let trip_cost = Decimal::new(random.random_range(800..6_000), 2);
        let convenience_fees = (trip_cost / Decimal::TEN).round_dp(2);
        let discount =
            if random.random_bool(0.1) { Decimal::new(random.random_range(100..500), 2) } else { Decimal::ZERO };
        let charged = status == BookingStatus::Cancelled && has_driver && random.random_bool(0.66);
        let cancellation_fee = if charged { Decimal::new(random.random_range(200..600), 2) } else { Decimal::ZERO };
        let paid = matches!(status, BookingStatus::Complete | BookingStatus::Paid);
        let id = BookingId(uuid_v7(tripdate - 600_000, &mut random));
        let mut booking: Booking = serde_json::from_value(json!({
            "id": id,
            "reference": reference(&mut random),
            "appcat": "taxi",
            "carType": "Sedan",
            "carImage": "https://files.example.com/cartypes/sedan.png",
            "customer": customer.id,
            "customer_name": customer.full_name(),
            "customer_contact": customer.mobile,
            "customer_email": customer.email,
            "customer_token": customer.pushToken,
            "pickup": {"lat": pickup.lat, "lng": pickup.lng, "add": pickup_address},
            "drop": {"lat": drop.lat, "lng": drop.lng, "add": drop_address},
            "pickupAddress": pickup_address,
            "dropAddress": drop_address,
            "estimate": trip_cost,
            "estimateDistance": random.random_range(1.0..25.0),
            "distance": random.random_range(1.0..25.0),
            "estimateTime": random.random_range(300..3_600),
            "status": status,
            "bookLater": random.random_bool(0.1),
            "tripdate": tripdate,
            "bookingDate": tripdate - random.random_range(60_000..3_600_000),
            "otp": false,
            "coords": [
                {"latitude": pickup.lat, "longitude": pickup.lng},
                {"latitude": (pickup.lat + drop.lat) / 2.0, "longitude": (pickup.lng + drop.lng) / 2.0},
                {"latitude": drop.lat, "longitude": drop.lng}
            ],
            "trip_cost": trip_cost,
            "convenience_fees": convenience_fees,
            "driver_share": trip_cost - convenience_fees,
            "discount_amount": discount,
            "discount": discount,
            "payableAmount": trip_cost - discount,
            "customer_paid": if paid { trip_cost - discount } else { Decimal::ZERO },
            "cashPaymentAmount": if paid { trip_cost - discount } else { Decimal::ZERO },
            "cancellationFee": cancellation_fee,
            "payment_mode": "cash",
            "updatedAt": tripdate + 1_800_000
        }))
        .expect("a generated booking is valid");
        if has_driver {
            let driver = self.driver(driver_index);
            booking.driver = Some(driver.id);
            booking.driver_name = driver.full_name();
            booking.driver_contact = driver.mobile.clone();
            booking.vehicle_number = driver.vehicleNumber.clone();
            booking.fleetadmin = driver.fleetadmin;
            booking.acceptedAt = Some(tripdate - 300_000);
        }
        if status == BookingStatus::New {
            for _ in 0..3 {
                booking.requestedDrivers.0.insert(self.driver(random.random_range(0..self.drivers)).id);
            }
        }
        if status == BookingStatus::Cancelled {
            booking.reason = "Changed my mind".into();
        }
        if status == BookingStatus::Complete {
            booking.rating = Some(random.random_range(3..=5));
        }
        booking
    }

    /// A per-record generator, so records can be made in any order.
    fn random(&self, kind: &str, index: u64) -> SmallRng {
        let kind_hash = kind
            .bytes()
            .fold(0xcbf2_9ce4_8422_2325u64, |hash, byte| (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3));
        SmallRng::seed_from_u64(splitmix(self.seed ^ kind_hash ^ splitmix(index)))
    }
}

/// SplitMix64: a good 64-bit mix of an index.
pub fn splitmix(value: u64) -> u64 {
    let mut z = value.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A UUID v7 (time-ordered, as the server mints them) for an instant.
fn uuid_v7(at: Millis, random: &mut SmallRng) -> Uuid {
    let mut bytes: [u8; 16] = random.random();
    bytes[..6].copy_from_slice(&(at.max(0) as u64).to_be_bytes()[2..]);
    bytes[6] = (bytes[6] & 0x0f) | 0x70;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    Uuid::from_bytes(bytes)
}

/// Five capital letters, distinct for every index below 26^5.
fn referral(index: u64) -> String {
    const SPACE: u64 = 26u64.pow(5);
    // 7_919 is prime to 26, so this is a bijection on 0..26^5.
    let mut value = (index % SPACE) * 7_919 % SPACE;
    (0..5)
        .map(|_| {
            let letter = char::from(b'A' + (value % 26) as u8);
            value /= 26;
            letter
        })
        .collect()
}

fn reference(random: &mut SmallRng) -> String {
    (0..6).map(|_| char::from(b'A' + random.random_range(0..26u8))).collect()
}

fn baltimore_point(random: &mut SmallRng) -> LatLng {
    LatLng::new(random.random_range(39.20..39.37), random.random_range(-76.71..-76.53))
}

const FIRST_NAMES: [&str; 80] = [
    "James",
    "Mary",
    "Michael",
    "Patricia",
    "Robert",
    "Jennifer",
    "John",
    "Linda",
    "David",
    "Elizabeth",
    "William",
    "Barbara",
    "Richard",
    "Susan",
    "Joseph",
    "Jessica",
    "Thomas",
    "Karen",
    "Christopher",
    "Sarah",
    "Charles",
    "Lisa",
    "Daniel",
    "Nancy",
    "Matthew",
    "Sandra",
    "Anthony",
    "Betty",
    "Mark",
    "Ashley",
    "Donald",
    "Emily",
    "Steven",
    "Kimberly",
    "Andrew",
    "Margaret",
    "Paul",
    "Donna",
    "Joshua",
    "Michelle",
    "Kenneth",
    "Carol",
    "Kevin",
    "Amanda",
    "Brian",
    "Melissa",
    "Timothy",
    "Deborah",
    "Ronald",
    "Stephanie",
    "Jason",
    "Rebecca",
    "George",
    "Sharon",
    "Edward",
    "Laura",
    "Jeffrey",
    "Cynthia",
    "Ryan",
    "Dorothy",
    "Jacob",
    "Amy",
    "Nicholas",
    "Kathleen",
    "Gary",
    "Angela",
    "Eric",
    "Shirley",
    "Jonathan",
    "Emma",
    "Stephen",
    "Brenda",
    "Larry",
    "Pamela",
    "Justin",
    "Nicole",
    "Scott",
    "Anna",
    "Brandon",
    "Samantha",
];

/// The commonest US surnames with their share per 100,000 people (2010
/// census); together about 12% of people. The rest get a tail name.
const COMMON_SURNAMES: [(&str, u32); 40] = [
    ("Smith", 828),
    ("Johnson", 655),
    ("Williams", 550),
    ("Brown", 487),
    ("Jones", 483),
    ("Garcia", 399),
    ("Miller", 393),
    ("Davis", 381),
    ("Rodriguez", 368),
    ("Martinez", 353),
    ("Hernandez", 339),
    ("Lopez", 282),
    ("Gonzalez", 276),
    ("Wilson", 268),
    ("Anderson", 265),
    ("Thomas", 261),
    ("Taylor", 257),
    ("Moore", 240),
    ("Jackson", 236),
    ("Martin", 234),
    ("Lee", 229),
    ("Perez", 221),
    ("Thompson", 219),
    ("White", 217),
    ("Harris", 210),
    ("Sanchez", 204),
    ("Clark", 185),
    ("Ramirez", 184),
    ("Lewis", 180),
    ("Robinson", 179),
    ("Walker", 174),
    ("Young", 160),
    ("Allen", 157),
    ("King", 156),
    ("Wright", 155),
    ("Scott", 147),
    ("Torres", 146),
    ("Nguyen", 146),
    ("Hill", 140),
    ("Flores", 139),
];

/// True for the surnames of [`COMMON_SURNAMES`].
pub fn is_common_surname(name: &str) -> bool {
    COMMON_SURNAMES.iter().any(|(surname, _)| *surname == name)
}

const TAIL_PARTS: [&str; 24] = [
    "Ash", "Bel", "Cor", "Dun", "Eld", "Fair", "Gar", "Hal", "Ives", "Kin", "Lang", "Mor", "Nor", "Oak", "Pem", "Quin",
    "Ros", "Sel", "Thorn", "Ul", "Vane", "Wick", "Yar", "Zell",
];
const TAIL_ENDS: [&str; 16] = [
    "by", "ton", "well", "wood", "field", "ford", "man", "ley", "son", "worth", "dale", "ham", "stead", "more",
    "ridge", "croft",
];

const TAIL_SUFFIXES: [&str; 40] = [
    "", "e", "s", "er", "ton", "ham", "ell", "ard", "ing", "ock", "ie", "an", "ey", "a", "o", "is", "et", "in", "or",
    "en", "y", "ow", "el", "ix", "um", "ax", "ud", "ip", "ag", "ob", "ez", "ul", "ym", "ek", "oz", "av", "ib", "uf",
    "ot", "ish",
];

fn person(random: &mut SmallRng) -> (String, String) {
    let first = FIRST_NAMES[random.random_range(0..FIRST_NAMES.len())].to_string();
    let mut draw = random.random_range(0..100_000u32);
    for (surname, share) in COMMON_SURNAMES {
        if draw < share {
            return (first, surname.to_string());
        }
        draw -= share;
    }
    // Up to 24 × 16 × 40 = 15,360 tail names, each rare.
    let last = format!(
        "{}{}{}",
        TAIL_PARTS[random.random_range(0..TAIL_PARTS.len())],
        TAIL_ENDS[random.random_range(0..TAIL_ENDS.len())],
        TAIL_SUFFIXES[random.random_range(0..TAIL_SUFFIXES.len())],
    );
    (first, last)
}

/// Baltimore streets, the busiest first; picked with a 1/rank weight, so the
/// commonest appears in about 10% of addresses and the rarest in 0.5%.
const STREETS: [&str; 60] = [
    "N Charles St",
    "E Pratt St",
    "Light St",
    "W Lombard St",
    "Eastern Ave",
    "E Fort Ave",
    "Greenmount Ave",
    "York Rd",
    "Harford Rd",
    "Belair Rd",
    "Liberty Heights Ave",
    "Reisterstown Rd",
    "Park Heights Ave",
    "Wilkens Ave",
    "Washington Blvd",
    "Frederick Ave",
    "Edmondson Ave",
    "N Howard St",
    "Falls Rd",
    "Roland Ave",
    "W Cold Spring Ln",
    "Northern Pkwy",
    "E North Ave",
    "W 33rd St",
    "St Paul St",
    "Calvert St",
    "Guilford Ave",
    "Aliceanna St",
    "Thames St",
    "Boston St",
    "S Broadway",
    "O'Donnell St",
    "Fleet St",
    "Key Hwy",
    "Hanover St",
    "Russell St",
    "Martin Luther King Jr Blvd",
    "Druid Park Dr",
    "Wabash Ave",
    "Loch Raven Blvd",
    "Perring Pkwy",
    "Hillen Rd",
    "The Alameda",
    "Charles Village Blvd",
    "Maryland Ave",
    "Mount Royal Ave",
    "Eutaw Pl",
    "Pennsylvania Ave",
    "Fulton Ave",
    "Monroe St",
    "Caton Ave",
    "Hollins St",
    "Pratt St",
    "Gay St",
    "Lexington St",
    "Saratoga St",
    "Mulberry St",
    "Fayette St",
    "Baltimore St",
    "President St",
];

fn address(random: &mut SmallRng) -> String {
    // Harmonic weights 1/1 … 1/60 sum to about 4.68.
    let total: f64 = (1..=STREETS.len()).map(|rank| 1.0 / rank as f64).sum();
    let mut draw = random.random_range(0.0..total);
    let mut street = STREETS[STREETS.len() - 1];
    for (rank, name) in STREETS.iter().enumerate() {
        let weight = 1.0 / (rank + 1) as f64;
        if draw < weight {
            street = name;
            break;
        }
        draw -= weight;
    }
    format!("{} {street}, Baltimore, MD 212{:02}", random.random_range(1..4_000), random.random_range(1..40))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_are_the_same_whenever_they_are_made() {
        let plan = Plan::SMALL;
        assert_eq!(plan.booking(42), plan.booking(42));
        assert_eq!(plan.rider(7), plan.rider(7));
        assert_ne!(plan.booking(42).id, plan.booking(43).id);
    }

    #[test]
    fn unique_user_fields_are_unique() {
        let plan = Plan::SMALL;
        let referrals: std::collections::BTreeSet<String> = (0..plan.riders)
            .map(|index| plan.rider(index).referralId)
            .chain((0..plan.drivers).map(|index| plan.driver(index).referralId))
            .chain((0..plan.fleets).map(|index| plan.fleetadmin(index).referralId))
            .collect();
        assert_eq!(referrals.len() as u64, plan.riders + plan.drivers + plan.fleets);
    }

    #[test]
    fn bookings_come_in_time_order_and_the_last_are_active() {
        let plan = Plan::SMALL;
        assert!(plan.tripdate(0) < plan.tripdate(plan.bookings - 1));
        assert!(plan.booking(plan.bookings - 1).status.is_active());
        let complete = (0..1_000).filter(|index| plan.booking(*index).status == BookingStatus::Complete).count();
        assert!((800..950).contains(&complete), "{complete}");
    }
}
