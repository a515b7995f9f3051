//! A booking request (spec §5 "Booking", §4 "Landing booking flow" and "Add
//! booking flow"): who may book where, the trip, its date and the delivery
//! details; and what a booking's later commands carry: a rating, a chat
//! message, a cancellation reason.

use super::contact::is_delivery_phone;
use super::{fail, is_blank};
use crate::error::{DomainResult, ErrorKey};
use crate::model::{AppCategory, CarType, MINUTE_MS, Millis, Place, PricedChoice, Role, User};
use serde::{Deserialize, Serialize};

/// Spec §9: a Book Later trip is at least 15 minutes away.
pub const BOOK_LATER_MIN_LEAD_MS: Millis = 15 * MINUTE_MS;
/// Ours: a chat message.
pub const CHAT_MESSAGE_MAX_CHARS: usize = 2_000;
/// Ours: a cancellation reason, or pickup and delivery instructions.
pub const MAX_NOTE_CHARS: usize = 500;

/// Where a booking request comes from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum BookingChannel<'a> {
    /// The public landing page: only a rider, booking for themself.
    Landing,
    /// The admin add-booking form, booking for the rider chosen in it.
    AdminForm { rider: Option<&'a User> },
}

/// The parts of the booker's profile the landing page checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProfileNames<'a> {
    pub first_name: &'a str,
    pub last_name: &'a str,
    pub email: &'a str,
}

impl<'a> From<&'a User> for ProfileNames<'a> {
    fn from(user: &'a User) -> Self {
        ProfileNames { first_name: &user.firstName, last_name: &user.lastName, email: &user.email }
    }
}

/// The four extra fields of a delivery booking (spec §2 "Landing page").
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(default)]
#[allow(non_snake_case)]
pub struct DeliveryDetails {
    pub deliveryPerson: String,
    pub deliveryPersonPhone: String,
    pub pickUpInstructions: String,
    pub deliveryInstructions: String,
}

/// What the booking form chose: the route and the car type, and for delivery
/// the parcel type and option (indexes into the car type's lists).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct TripRequest<'a> {
    pub pickup: Option<&'a Place>,
    pub drop: Option<&'a Place>,
    /// The car type the request named, looked up by the caller; `None` when
    /// none was named or the name is unknown.
    pub car_type: Option<&'a CarType>,
    pub parcel_type_index: Option<usize>,
    pub option_index: Option<usize>,
}

/// A trip choice that passed: everything present and in range.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TripChoice<'a> {
    pub pickup: &'a Place,
    pub drop: &'a Place,
    pub car_type: &'a CarType,
    pub parcel_type: Option<&'a PricedChoice>,
    pub option: Option<&'a PricedChoice>,
}

/// A booking request as the server receives it.
#[derive(Debug, Clone, PartialEq)]
pub struct BookingRequest<'a> {
    pub channel: BookingChannel<'a>,
    /// The signed-in user's role; `None` is a visitor who is not logged in.
    pub booker_role: Option<Role>,
    /// The signed-in user's profile; `None` when the account has none.
    pub booker_profile: Option<ProfileNames<'a>>,
    /// The booking's category (the platform's `appcat`).
    pub category: AppCategory,
    pub trip: TripRequest<'a>,
    pub book_later: bool,
    pub trip_date: Option<Millis>,
    /// Read only for delivery bookings.
    pub delivery: &'a DeliveryDetails,
}

/// A booking request that passed every rule of spec §5.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckedBooking<'a> {
    pub trip: TripChoice<'a>,
    /// `now` for Book Now, the chosen date for Book Later.
    pub tripdate: Millis,
    /// Trimmed delivery details; `None` for taxi bookings.
    pub delivery: Option<DeliveryDetails>,
}

/// Checks a booking request in the order the landing page does (spec §4):
/// signed in, allowed to book, profile complete, trip chosen, date, delivery.
///
/// On the landing page a signed-in user who is not a rider gets `not_allowed`
/// (403): the spec only says such users may not proceed, and
/// `not_valid_user_type` would make the client sign them out. On the admin
/// form the booker must be an admin; the rider chosen there must exist
/// (`select_proper`) and have a mobile number (`incomplete_user`), and the
/// admin's own profile is not checked. Blank, not only "a single space",
/// counts as an incomplete profile.
pub fn validate_booking<'a>(request: &BookingRequest<'a>, now: Millis) -> DomainResult<CheckedBooking<'a>> {
    let Some(role) = request.booker_role else {
        return Err(ErrorKey::MustLogin.into());
    };
    match request.channel {
        BookingChannel::Landing => {
            if role != Role::Rider {
                return Err(ErrorKey::NotAllowed.into());
            }
            let Some(profile) = request.booker_profile else {
                return Err(ErrorKey::UserIssueContactAdmin.into());
            };
            check_profile_complete(profile)?;
        }
        BookingChannel::AdminForm { rider } => {
            if role != Role::Admin {
                return Err(ErrorKey::NotAllowed.into());
            }
            let Some(rider) = rider.filter(|rider| rider.usertype == Role::Rider) else {
                return fail(ErrorKey::SelectProper, "customer");
            };
            if is_blank(&rider.mobile) {
                return fail(ErrorKey::IncompleteUser, "customer");
            }
        }
    }
    let trip = validate_trip(&request.trip, request.category)?;
    let tripdate = validate_trip_date(request.book_later, request.trip_date, now)?;
    let delivery = match request.category {
        AppCategory::Taxi => None,
        AppCategory::Delivery => Some(validate_delivery_details(request.delivery)?),
    };
    Ok(CheckedBooking { trip, tripdate, delivery })
}

fn check_profile_complete(profile: ProfileNames<'_>) -> DomainResult<()> {
    for (value, field) in [(profile.first_name, "firstName"), (profile.last_name, "lastName"), (profile.email, "email")]
    {
        if is_blank(value) {
            return fail(ErrorKey::ProfileIncomplete, field);
        }
    }
    Ok(())
}

/// Pickup, drop and car type chosen (`select_proper`), shared by the estimate
/// and the booking. Coordinates out of range count as not chosen.
///
/// For delivery, when the car type lists parcel types or options one must be
/// chosen, and an index must lie in its list (`select_proper`); the original
/// chooser always had one selected. For taxi the indexes are ignored, as the
/// delivery-only fields are hidden there (spec §1).
pub fn validate_trip<'a>(request: &TripRequest<'a>, category: AppCategory) -> DomainResult<TripChoice<'a>> {
    let Some(pickup) = request.pickup.filter(|place| place.point().is_valid()) else {
        return fail(ErrorKey::SelectProper, "pickup");
    };
    let Some(drop) = request.drop.filter(|place| place.point().is_valid()) else {
        return fail(ErrorKey::SelectProper, "drop");
    };
    let Some(car_type) = request.car_type else {
        return fail(ErrorKey::SelectProper, "carType");
    };
    let (parcel_type, option) = match category {
        AppCategory::Taxi => (None, None),
        AppCategory::Delivery => (
            pick_choice(&car_type.parcelTypes, request.parcel_type_index, "parcelTypeIndex")?,
            match request.option_index {
                None if !car_type.optionRequired => None,
                index => pick_choice(&car_type.options, index, "optionIndex")?,
            },
        ),
    };
    Ok(TripChoice { pickup, drop, car_type, parcel_type, option })
}

fn pick_choice<'a>(
    choices: &'a [PricedChoice],
    index: Option<usize>,
    field: &'static str,
) -> DomainResult<Option<&'a PricedChoice>> {
    match index {
        None if choices.is_empty() => Ok(None),
        None => fail(ErrorKey::SelectProper, field),
        Some(index) => match choices.get(index) {
            Some(choice) => Ok(Some(choice)),
            None => fail(ErrorKey::SelectProper, field),
        },
    }
}

/// Book Now is `now`; Book Later needs a date (`select_proper`) at least
/// [`BOOK_LATER_MIN_LEAD_MS`] after `now` (`past_booking_error`).
pub fn validate_trip_date(book_later: bool, trip_date: Option<Millis>, now: Millis) -> DomainResult<Millis> {
    if !book_later {
        return Ok(now);
    }
    let Some(trip_date) = trip_date else {
        return fail(ErrorKey::SelectProper, "tripdate");
    };
    if trip_date < now.saturating_add(BOOK_LATER_MIN_LEAD_MS) {
        return fail(ErrorKey::PastBookingError, "tripdate");
    }
    Ok(trip_date)
}

/// Delivery person non-blank and a plausible recipient phone, else
/// `deliveryDetailMissing` (spec §5). Instructions are optional, at most
/// [`MAX_NOTE_CHARS`] each (`invalid_input`). Returns the details trimmed.
pub fn validate_delivery_details(details: &DeliveryDetails) -> DomainResult<DeliveryDetails> {
    let person = details.deliveryPerson.trim();
    if person.is_empty() {
        return fail(ErrorKey::DeliveryDetailMissing, "deliveryPerson");
    }
    let phone = details.deliveryPersonPhone.trim();
    if !is_delivery_phone(phone) {
        return fail(ErrorKey::DeliveryDetailMissing, "deliveryPersonPhone");
    }
    let pickup_instructions = details.pickUpInstructions.trim();
    if pickup_instructions.chars().count() > MAX_NOTE_CHARS {
        return fail(ErrorKey::InvalidInput, "pickUpInstructions");
    }
    let delivery_instructions = details.deliveryInstructions.trim();
    if delivery_instructions.chars().count() > MAX_NOTE_CHARS {
        return fail(ErrorKey::InvalidInput, "deliveryInstructions");
    }
    Ok(DeliveryDetails {
        deliveryPerson: person.to_string(),
        deliveryPersonPhone: phone.to_string(),
        pickUpInstructions: pickup_instructions.to_string(),
        deliveryInstructions: delivery_instructions.to_string(),
    })
}

/// A rating from 1 to 5 stars (`invalid_rating`).
pub fn validate_rating(rating: i64) -> DomainResult<u8> {
    match u8::try_from(rating) {
        Ok(stars @ 1..=5) => Ok(stars),
        _ => fail(ErrorKey::InvalidRating, "rating"),
    }
}

/// A chat message: not blank, at most [`CHAT_MESSAGE_MAX_CHARS`] characters
/// once trimmed (`invalid_input`). Returns it trimmed.
pub fn validate_chat_message(message: &str) -> DomainResult<&str> {
    let message = message.trim();
    if message.is_empty() || message.chars().count() > CHAT_MESSAGE_MAX_CHARS {
        return fail(ErrorKey::InvalidInput, "message");
    }
    Ok(message)
}

/// A cancellation reason must be chosen (`select_proper`, as the reason
/// dialog says); over [`MAX_NOTE_CHARS`] is `invalid_input`. Returns it trimmed.
pub fn validate_cancel_reason(reason: &str) -> DomainResult<&str> {
    let reason = reason.trim();
    if reason.is_empty() {
        return fail(ErrorKey::SelectProper, "reason");
    }
    if reason.chars().count() > MAX_NOTE_CHARS {
        return fail(ErrorKey::InvalidInput, "reason");
    }
    Ok(reason)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::CarTypeId;
    use crate::model::AmountType;
    use crate::rules::test_support::*;
    use proptest::prelude::*;
    use rust_decimal::Decimal;
    use rust_decimal_macros::dec;

    const NOW: Millis = 1_700_000_000_000;

    fn choice(description: &str, amount: Decimal) -> PricedChoice {
        PricedChoice { description: description.into(), amount }
    }

    fn car_type(with_parcels: bool) -> CarType {
        CarType {
            id: CarTypeId::from_u128(1),
            name: "Sedan".into(),
            image: String::new(),
            base_fare: dec!(2),
            rate_per_unit_distance: dec!(1),
            rate_per_hour: dec!(10),
            min_fare: dec!(5),
            convenience_fees: dec!(1),
            convenience_fee_type: AmountType::Flat,
            extra_info: String::new(),
            createdAt: 0,
            parcelTypes: if with_parcels { vec![choice("Box", dec!(3)), choice("Crate", dec!(6))] } else { vec![] },
            options: if with_parcels { vec![choice("Fragile", dec!(1))] } else { vec![] },
            cancelSlab: vec![],
            optionRequired: false,
        }
    }

    fn place(lat: f64, lng: f64) -> Place {
        Place { lat, lng, add: "Somewhere".into() }
    }

    const PROFILE: ProfileNames<'static> =
        ProfileNames { first_name: "Jane", last_name: "Doe", email: "jane@example.com" };

    struct Fixture {
        pickup: Place,
        drop: Place,
        car: CarType,
        delivery: DeliveryDetails,
    }

    impl Fixture {
        fn new() -> Self {
            Fixture {
                pickup: place(51.5, -0.12),
                drop: place(51.52, -0.1),
                car: car_type(true),
                delivery: DeliveryDetails {
                    deliveryPerson: " Sam ".into(),
                    deliveryPersonPhone: "555-123 4567".into(),
                    pickUpInstructions: "Ring twice".into(),
                    deliveryInstructions: String::new(),
                },
            }
        }

        /// A landing-page Book Now taxi booking by a rider that passes.
        fn landing(&self) -> BookingRequest<'_> {
            BookingRequest {
                channel: BookingChannel::Landing,
                booker_role: Some(Role::Rider),
                booker_profile: Some(PROFILE),
                category: AppCategory::Taxi,
                trip: TripRequest {
                    pickup: Some(&self.pickup),
                    drop: Some(&self.drop),
                    car_type: Some(&self.car),
                    parcel_type_index: None,
                    option_index: None,
                },
                book_later: false,
                trip_date: None,
                delivery: &self.delivery,
            }
        }

        fn landing_delivery(&self) -> BookingRequest<'_> {
            let mut request = self.landing();
            request.category = AppCategory::Delivery;
            request.trip.parcel_type_index = Some(1);
            request.trip.option_index = Some(0);
            request
        }
    }

    #[test]
    fn a_complete_book_now_request_passes_with_now_as_trip_date() {
        // spec §5 Booking; §4 Book Now
        let fixture = Fixture::new();
        let checked = validate_booking(&fixture.landing(), NOW).unwrap();
        assert_eq!(checked.tripdate, NOW);
        assert_eq!(checked.trip.car_type.name, "Sedan");
        assert_eq!(checked.delivery, None);
    }

    #[test]
    fn a_visitor_who_is_not_logged_in_must_log_in() {
        // spec §5 Booking: must be logged in ('must_login')
        let fixture = Fixture::new();
        let request = BookingRequest { booker_role: None, ..fixture.landing() };
        assert_eq!(key_of(validate_booking(&request, NOW)), ErrorKey::MustLogin);
    }

    #[test]
    fn only_riders_may_book_on_the_landing_page() {
        // spec §5 Booking: only riders may proceed on the landing page
        let fixture = Fixture::new();
        for role in [Role::Driver, Role::Fleetadmin, Role::Admin] {
            let request = BookingRequest { booker_role: Some(role), ..fixture.landing() };
            assert_eq!(key_of(validate_booking(&request, NOW)), ErrorKey::NotAllowed, "{role:?}");
        }
    }

    #[test]
    fn a_missing_profile_is_user_issue_contact_admin() {
        // spec §5 Booking: missing profile 'user_issue_contact_admin'
        let fixture = Fixture::new();
        let request = BookingRequest { booker_profile: None, ..fixture.landing() };
        assert_eq!(key_of(validate_booking(&request, NOW)), ErrorKey::UserIssueContactAdmin);
    }

    #[test]
    fn a_blank_name_or_email_is_an_incomplete_profile() {
        // spec §5 Booking: a single space is 'profile_incomplete'; any blank is treated the same
        let fixture = Fixture::new();
        let cases = [
            (ProfileNames { first_name: " ", ..PROFILE }, "firstName"),
            (ProfileNames { last_name: "", ..PROFILE }, "lastName"),
            (ProfileNames { email: " \t", ..PROFILE }, "email"),
        ];
        for (profile, field) in cases {
            let request = BookingRequest { booker_profile: Some(profile), ..fixture.landing() };
            assert_eq!(failure(validate_booking(&request, NOW)), (ErrorKey::ProfileIncomplete, Some(field)));
        }
    }

    #[test]
    fn pickup_drop_and_car_type_are_required() {
        // spec §5 Booking: pickup, drop and car type required ('select_proper')
        let fixture = Fixture::new();
        let bad_place = place(f64::NAN, 10.0);
        let far_place = place(91.0, 0.0);
        let mut request = fixture.landing();
        request.trip.pickup = None;
        assert_eq!(failure(validate_booking(&request, NOW)), (ErrorKey::SelectProper, Some("pickup")));
        request.trip.pickup = Some(&bad_place);
        assert_eq!(failure(validate_booking(&request, NOW)), (ErrorKey::SelectProper, Some("pickup")));
        let mut request = fixture.landing();
        request.trip.drop = Some(&far_place);
        assert_eq!(failure(validate_booking(&request, NOW)), (ErrorKey::SelectProper, Some("drop")));
        let mut request = fixture.landing();
        request.trip.car_type = None;
        assert_eq!(failure(validate_booking(&request, NOW)), (ErrorKey::SelectProper, Some("carType")));
    }

    #[test]
    fn book_later_needs_a_date() {
        // spec §5 Booking: Book Later needs a date ('select_proper')
        let fixture = Fixture::new();
        let request = BookingRequest { book_later: true, trip_date: None, ..fixture.landing() };
        assert_eq!(failure(validate_booking(&request, NOW)), (ErrorKey::SelectProper, Some("tripdate")));
    }

    #[test]
    fn book_later_must_be_at_least_fifteen_minutes_ahead() {
        // spec §5 Booking, §9: at least 15 minutes in the future ('past_booking_error')
        let fixture = Fixture::new();
        assert_eq!(BOOK_LATER_MIN_LEAD_MS, 900_000);
        let at = |trip_date| BookingRequest { book_later: true, trip_date: Some(trip_date), ..fixture.landing() };
        let just_enough = NOW + BOOK_LATER_MIN_LEAD_MS;
        assert_eq!(validate_booking(&at(just_enough), NOW).unwrap().tripdate, just_enough);
        assert_eq!(key_of(validate_booking(&at(just_enough - 1), NOW)), ErrorKey::PastBookingError);
        assert_eq!(key_of(validate_booking(&at(NOW - 1), NOW)), ErrorKey::PastBookingError);
        assert_eq!(key_of(validate_trip_date(true, Some(0), Millis::MAX)), ErrorKey::PastBookingError);
    }

    #[test]
    fn book_now_ignores_a_trip_date_sent_along() {
        // spec §2: switching to Book Now resets the date
        assert_eq!(validate_trip_date(false, Some(NOW - 5), NOW).unwrap(), NOW);
    }

    #[test]
    fn a_delivery_booking_returns_trimmed_details_and_the_chosen_parcel() {
        // spec §5 Booking: delivery person and phone; §2 parcel type and option chooser
        let fixture = Fixture::new();
        let checked = validate_booking(&fixture.landing_delivery(), NOW).unwrap();
        let delivery = checked.delivery.unwrap();
        assert_eq!(delivery.deliveryPerson, "Sam");
        assert_eq!(delivery.deliveryPersonPhone, "555-123 4567");
        assert_eq!(checked.trip.parcel_type.unwrap().description, "Crate");
        assert_eq!(checked.trip.option.unwrap().description, "Fragile");
    }

    #[test]
    fn a_delivery_needs_a_person_and_a_phone_like_recipient_number() {
        // spec §5 Booking: delivery person non-blank; phone digits/space/dash, at least 7, longer than 6
        let fixture = Fixture::new();
        let with = |person: &str, phone: &str| DeliveryDetails {
            deliveryPerson: person.into(),
            deliveryPersonPhone: phone.into(),
            ..DeliveryDetails::default()
        };
        let missing = ErrorKey::DeliveryDetailMissing;
        assert_eq!(failure(validate_delivery_details(&with("  ", "5551234567"))), (missing, Some("deliveryPerson")));
        for phone in ["", "123456", "12 34 5", "555-12a-4567", "-------", "555_1234567", "+"] {
            assert_eq!(
                failure(validate_delivery_details(&with("Sam", phone))),
                (missing, Some("deliveryPersonPhone")),
                "{phone:?}"
            );
        }
        for phone in ["1234567", "555 123 4567", "555-123-4567", "+44 20 7946 0958"] {
            assert!(validate_delivery_details(&with("Sam", phone)).is_ok(), "{phone:?}");
        }
        let request = BookingRequest { delivery: &DeliveryDetails::default(), ..fixture.landing_delivery() };
        assert_eq!(key_of(validate_booking(&request, NOW)), missing);
    }

    #[test]
    fn overlong_delivery_instructions_are_invalid_input() {
        let details = DeliveryDetails {
            deliveryPerson: "Sam".into(),
            deliveryPersonPhone: "5551234567".into(),
            pickUpInstructions: "x".repeat(MAX_NOTE_CHARS + 1),
            deliveryInstructions: String::new(),
        };
        assert_eq!(failure(validate_delivery_details(&details)), (ErrorKey::InvalidInput, Some("pickUpInstructions")));
    }

    #[test]
    fn parcel_type_and_option_must_be_chosen_from_the_car_types_lists() {
        // spec §2: parcel type and options chooser; an index outside the lists is 'select_proper'
        let fixture = Fixture::new();
        let mut request = fixture.landing_delivery();
        request.trip.parcel_type_index = Some(2);
        assert_eq!(failure(validate_booking(&request, NOW)), (ErrorKey::SelectProper, Some("parcelTypeIndex")));
        request.trip.parcel_type_index = None;
        assert_eq!(failure(validate_booking(&request, NOW)), (ErrorKey::SelectProper, Some("parcelTypeIndex")));
        let mut request = fixture.landing_delivery();
        request.trip.option_index = Some(usize::MAX);
        assert_eq!(failure(validate_booking(&request, NOW)), (ErrorKey::SelectProper, Some("optionIndex")));
    }

    #[test]
    fn a_car_type_without_parcel_lists_needs_no_choice_and_refuses_an_index() {
        let car = car_type(false);
        let (pickup, drop) = (place(1.0, 1.0), place(2.0, 2.0));
        let mut trip =
            TripRequest { pickup: Some(&pickup), drop: Some(&drop), car_type: Some(&car), ..Default::default() };
        let choice = validate_trip(&trip, AppCategory::Delivery).unwrap();
        assert_eq!((choice.parcel_type, choice.option), (None, None));
        trip.parcel_type_index = Some(0);
        assert_eq!(key_of(validate_trip(&trip, AppCategory::Delivery)), ErrorKey::SelectProper);
    }

    #[test]
    fn taxi_bookings_ignore_parcel_indexes_and_delivery_fields() {
        // spec §1: delivery-only fields are hidden unless the category is delivery
        let fixture = Fixture::new();
        let mut request = fixture.landing();
        request.trip.parcel_type_index = Some(99);
        let empty = DeliveryDetails::default();
        request.delivery = &empty;
        let checked = validate_booking(&request, NOW).unwrap();
        assert_eq!(checked.trip.parcel_type, None);
        assert_eq!(checked.delivery, None);
    }

    #[test]
    fn the_admin_form_books_for_a_chosen_rider_with_a_mobile_number() {
        // spec §5 Booking: admin form needs a rider ('select_proper') with a mobile number ('incomplete_user')
        let fixture = Fixture::new();
        let with_mobile = rider("+15551234567");
        let without_mobile = rider(" ");
        let mut not_a_rider = rider("+15551234567");
        not_a_rider.usertype = Role::Driver;
        let admin_form = |rider| BookingRequest {
            channel: BookingChannel::AdminForm { rider },
            booker_role: Some(Role::Admin),
            booker_profile: None,
            ..fixture.landing()
        };
        assert!(validate_booking(&admin_form(Some(&with_mobile)), NOW).is_ok());
        assert_eq!(failure(validate_booking(&admin_form(None), NOW)), (ErrorKey::SelectProper, Some("customer")));
        assert_eq!(
            failure(validate_booking(&admin_form(Some(&not_a_rider)), NOW)),
            (ErrorKey::SelectProper, Some("customer"))
        );
        assert_eq!(
            failure(validate_booking(&admin_form(Some(&without_mobile)), NOW)),
            (ErrorKey::IncompleteUser, Some("customer"))
        );
    }

    #[test]
    fn only_admins_use_the_admin_form() {
        // spec §2: /addbookings is admin only
        let fixture = Fixture::new();
        let with_mobile = rider("+15551234567");
        for role in [Role::Rider, Role::Driver, Role::Fleetadmin] {
            let request = BookingRequest {
                channel: BookingChannel::AdminForm { rider: Some(&with_mobile) },
                booker_role: Some(role),
                ..fixture.landing()
            };
            assert_eq!(key_of(validate_booking(&request, NOW)), ErrorKey::NotAllowed);
        }
    }

    #[test]
    fn profile_names_come_from_the_user() {
        let user = rider("1");
        assert_eq!(ProfileNames::from(&user), PROFILE);
    }

    #[test]
    fn a_rating_is_one_to_five_stars() {
        // spec §4 COMPLETE with a rating; 'invalid_rating' is ours
        for stars in 1..=5 {
            assert_eq!(validate_rating(stars).unwrap(), stars as u8);
        }
        for stars in [0, 6, -1, 256, i64::MIN, i64::MAX] {
            assert_eq!(failure(validate_rating(stars)), (ErrorKey::InvalidRating, Some("rating")), "{stars}");
        }
    }

    #[test]
    fn a_chat_message_is_non_blank_and_at_most_two_thousand_characters() {
        // spec §3 Chat message; limit ours
        assert_eq!(validate_chat_message("  on my way ").unwrap(), "on my way");
        assert!(validate_chat_message(&"é".repeat(CHAT_MESSAGE_MAX_CHARS)).is_ok());
        for message in ["".to_string(), " \n ".to_string(), "x".repeat(CHAT_MESSAGE_MAX_CHARS + 1)] {
            assert_eq!(failure(validate_chat_message(&message)), (ErrorKey::InvalidInput, Some("message")));
        }
    }

    #[test]
    fn a_cancellation_needs_a_reason() {
        // spec §4 Panel actions: NEW or ACCEPTED opens a reason dialog
        assert_eq!(validate_cancel_reason(" Driver late ").unwrap(), "Driver late");
        assert_eq!(failure(validate_cancel_reason("  ")), (ErrorKey::SelectProper, Some("reason")));
        assert_eq!(
            failure(validate_cancel_reason(&"r".repeat(MAX_NOTE_CHARS + 1))),
            (ErrorKey::InvalidInput, Some("reason"))
        );
    }

    proptest! {
        #[test]
        fn free_text_validators_never_panic(text in any::<String>()) {
            let _ = validate_chat_message(&text);
            let _ = validate_cancel_reason(&text);
        }
    }
}
