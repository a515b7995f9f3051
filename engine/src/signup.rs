//! A person signing themself up (spec §7 `user_signup`, issue #33): the
//! checks of the form's fields. The one-time code, the contact and the
//! account's creation are the edge's; what is valid is decided here.

use crate::error::{DomainError, DomainResult, ErrorKey};
use crate::model::{CarType, Millis, Role};
use crate::rules::catalogue::car_type_named;
use crate::rules::contact::validate_email;
use crate::rules::profile::check_name;
use crate::rules::{MAX_SHORT_TEXT_CHARS, fail};
use serde::{Deserialize, Serialize};

/// What the sign-up form sends besides the contact and the code.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(default)]
#[allow(non_snake_case)]
pub struct SignupFields {
    /// `driver` or `rider`.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub usertype: Option<Role>,
    pub firstName: String,
    pub lastName: String,
    pub email: Option<String>,
    /// A car type's name (drivers).
    pub carType: String,
    pub vehicleMake: String,
    pub vehicleModel: String,
    pub vehicleNumber: String,
    pub vehicleColor: String,
    /// Four digits.
    pub vehicleYear: String,
}

/// The fields once checked, trimmed.
#[derive(Debug, Clone, PartialEq, Eq)]
#[allow(non_snake_case)]
pub struct CheckedSignup {
    pub usertype: Role,
    pub firstName: String,
    pub lastName: String,
    pub email: Option<String>,
    pub carType: Option<String>,
    pub vehicleMake: String,
    pub vehicleModel: String,
    pub vehicleNumber: String,
    pub vehicleColor: String,
    pub vehicleYear: String,
}

/// Roughly the calendar year of a time (good to a day at New Year).
fn year_of(now: Millis) -> i64 {
    1970 + now / 31_556_952_000
}

/// A model year of four digits, from 1950 to next year (`vehicle_year_invalid`).
pub fn check_vehicle_year(text: &str) -> DomainResult<String> {
    let text = text.trim();
    let year: i64 = match text.parse() {
        Ok(year) if text.len() == 4 && text.chars().all(|digit| digit.is_ascii_digit()) => year,
        _ => return fail(ErrorKey::VehicleYearInvalid, "vehicleYear"),
    };
    // The bound on the future is the caller's clock; 2100 is a safety net.
    if !(1950..=2100).contains(&year) {
        return fail(ErrorKey::VehicleYearInvalid, "vehicleYear");
    }
    Ok(text.to_string())
}

/// A name as the profile wants it ([`check_name`]), and no control characters.
fn name(text: &str, field: &'static str) -> DomainResult<String> {
    let name = check_name(text, field)?;
    if name.chars().any(char::is_control) {
        return fail(ErrorKey::InvalidInput, field);
    }
    Ok(name)
}

fn vehicle_text(text: &str, field: &'static str) -> DomainResult<String> {
    let text = text.trim();
    if text.is_empty() {
        return fail(ErrorKey::VehicleDetailsMissing, field);
    }
    if text.chars().count() > MAX_SHORT_TEXT_CHARS || text.chars().any(char::is_control) {
        return fail(ErrorKey::InvalidInput, field);
    }
    Ok(text.to_string())
}

/// Checks a sign-up: names not blank (`profile_incomplete`), a proper
/// e-mail when given (`proper_email`); for a driver also a car type the
/// platform has (`select_proper`), make, model, plate and colour not blank
/// (`vehicle_details_missing`) and a model year from 1950 to next year
/// (`vehicle_year_invalid`). Only riders and drivers sign themselves up
/// (`not_valid_user_type`).
pub fn check_signup(fields: &SignupFields, car_types: &[CarType], now: Millis) -> DomainResult<CheckedSignup> {
    let usertype = match fields.usertype {
        Some(role @ (Role::Driver | Role::Rider)) => role,
        _ => return fail(ErrorKey::NotValidUserType, "usertype"),
    };
    let first_name = name(&fields.firstName, "firstName")?;
    let last_name = name(&fields.lastName, "lastName")?;
    let email = match fields.email.as_deref().map(str::trim).filter(|email| !email.is_empty()) {
        Some(email) => Some(validate_email(email)?),
        None => None,
    };
    let mut checked = CheckedSignup {
        usertype,
        firstName: first_name,
        lastName: last_name,
        email,
        carType: None,
        vehicleMake: String::new(),
        vehicleModel: String::new(),
        vehicleNumber: String::new(),
        vehicleColor: String::new(),
        vehicleYear: String::new(),
    };
    if usertype == Role::Rider {
        return Ok(checked);
    }
    let car_type =
        car_type_named(&fields.carType, car_types).ok_or(DomainError::on_field(ErrorKey::SelectProper, "carType"))?;
    checked.carType = Some(car_type.name.clone());
    checked.vehicleMake = vehicle_text(&fields.vehicleMake, "vehicleMake")?;
    checked.vehicleModel = vehicle_text(&fields.vehicleModel, "vehicleModel")?;
    checked.vehicleNumber = vehicle_text(&fields.vehicleNumber, "vehicleNumber")?;
    checked.vehicleColor = vehicle_text(&fields.vehicleColor, "vehicleColor")?;
    let year = check_vehicle_year(&fields.vehicleYear)?;
    if year.parse::<i64>().unwrap_or_default() > year_of(now) + 1 {
        return fail(ErrorKey::VehicleYearInvalid, "vehicleYear");
    }
    checked.vehicleYear = year;
    Ok(checked)
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: Millis = 1_800_000_000_000; // January 2027

    fn economy() -> Vec<CarType> {
        let mut economy: CarType = serde_json::from_value(serde_json::json!({
            "id": crate::CarTypeId::from_u128(1),
            "name": "Economy",
            "image": "",
            "base_fare": 2.5,
            "rate_per_unit_distance": 1.1,
            "rate_per_hour": 15,
            "min_fare": 7,
            "convenience_fees": 10,
            "convenience_fee_type": "flat",
        }))
        .expect("a car type");
        economy.name = "Economy".into();
        vec![economy]
    }

    fn driver_form() -> SignupFields {
        SignupFields {
            usertype: Some(Role::Driver),
            firstName: " Dana ".into(),
            lastName: "Driver".into(),
            email: Some("Dana@Example.com".into()),
            carType: "Economy".into(),
            vehicleMake: "Toyota".into(),
            vehicleModel: "Prius".into(),
            vehicleNumber: "MD 1234".into(),
            vehicleColor: "Silver".into(),
            vehicleYear: "2019".into(),
        }
    }

    fn refusal(fields: &SignupFields) -> (ErrorKey, Option<&'static str>) {
        let error = check_signup(fields, &economy(), NOW).unwrap_err();
        (error.key, error.field)
    }

    #[test]
    fn a_complete_driver_form_is_trimmed_and_accepted() {
        let checked = check_signup(&driver_form(), &economy(), NOW).unwrap();
        assert_eq!(checked.firstName, "Dana");
        assert_eq!(checked.carType.as_deref(), Some("Economy"));
        assert_eq!(checked.vehicleYear, "2019");
    }

    #[test]
    fn each_field_is_refused_with_its_key() {
        let blank_name = SignupFields { firstName: " ".into(), ..driver_form() };
        assert_eq!(refusal(&blank_name), (ErrorKey::ProfileIncomplete, Some("firstName")));
        let unknown_car = SignupFields { carType: "Limo".into(), ..driver_form() };
        assert_eq!(refusal(&unknown_car), (ErrorKey::SelectProper, Some("carType")));
        let blank_plate = SignupFields { vehicleNumber: "  ".into(), ..driver_form() };
        assert_eq!(refusal(&blank_plate), (ErrorKey::VehicleDetailsMissing, Some("vehicleNumber")));
        for year in ["19", "abcd", "1900", "2031"] {
            let bad_year = SignupFields { vehicleYear: year.into(), ..driver_form() };
            assert_eq!(refusal(&bad_year), (ErrorKey::VehicleYearInvalid, Some("vehicleYear")), "{year}");
        }
        let admin = SignupFields { usertype: Some(Role::Admin), ..driver_form() };
        assert_eq!(refusal(&admin), (ErrorKey::NotValidUserType, Some("usertype")));
        let bad_email = SignupFields { email: Some("not-mail".into()), ..driver_form() };
        assert_eq!(refusal(&bad_email), (ErrorKey::ProperEmail, Some("email")));
    }

    #[test]
    fn a_rider_needs_only_names() {
        let rider = SignupFields {
            usertype: Some(Role::Rider),
            firstName: "Rae".into(),
            lastName: "Rider".into(),
            ..SignupFields::default()
        };
        let checked = check_signup(&rider, &economy(), NOW).unwrap();
        assert_eq!((checked.usertype, checked.carType), (Role::Rider, None));
    }
}
