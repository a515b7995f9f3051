//! The accounts a manager adds, edits and approves (spec §5 "Admin panel",
//! §6): the fields they send, the new account they make, what an edit may
//! change, and whose fleet a driver joins. Whether a contact or a name is
//! already taken in storage, and who may do what (`permissions`), are asked
//! elsewhere.

use super::catalogue::car_type_named;
use super::contact::{check_contacts, comparable_phone, same_email};
use super::profile::check_name;
use super::{MAX_INFO_CHARS, MAX_SHORT_TEXT_CHARS, fail, text_within};
use crate::error::{DomainError, DomainResult, ErrorKey};
use crate::ids::UserId;
use crate::model::{CarType, Millis, RegType, Role, User};
use crate::permissions::Principal;
use serde::{Deserialize, Deserializer, Serialize};

/// A name as [`check_name`] wants it; a manager's form answers every failure
/// with `invalid_input`.
fn required_name(name: Option<&str>, field: &'static str) -> DomainResult<String> {
    check_name(name.unwrap_or_default(), field).map_err(|_| DomainError::on_field(ErrorKey::InvalidInput, field))
}

/// `null` is `Some(None)`, a missing field `None` (with `#[serde(default)]`).
fn present_or_null<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
    deserializer: D,
) -> Result<Option<Option<T>>, D::Error> {
    Option::<T>::deserialize(deserializer).map(Some)
}

/// The fields of an account in the users tables: what a manager sends to add
/// an account (all that apply) or to edit one (only what changes). `None`
/// leaves a field as it is.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(default)]
#[allow(non_snake_case)]
pub struct AccountFields {
    /// Required to add; cannot be changed by an edit.
    pub usertype: Option<Role>,
    pub firstName: Option<String>,
    pub lastName: Option<String>,
    /// Only when adding: an edit that changes it is `contact_not_editable`.
    pub email: Option<String>,
    /// Only when adding: an edit that changes it is `contact_not_editable`.
    pub mobile: Option<String>,
    /// Added accounts are approved unless this says otherwise.
    pub approved: Option<bool>,
    /// A driver's fleet admin; admins only (a fleet admin's drivers are theirs). `null` takes the driver out of any fleet.
    #[serde(deserialize_with = "present_or_null")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<UserId>))]
    pub fleetadmin: Option<Option<UserId>>,
    /// A driver's car type, by name; blank clears it.
    pub carType: Option<String>,
    pub vehicleMake: Option<String>,
    pub vehicleModel: Option<String>,
    pub vehicleNumber: Option<String>,
    pub vehicleColor: Option<String>,
    /// Four digits; blank clears it.
    pub vehicleYear: Option<String>,
    pub other_info: Option<String>,
    pub bankName: Option<String>,
    pub bankCode: Option<String>,
    pub bankAccount: Option<String>,
}

/// A driver's car type must be one of the platform's (`invalid_input` on
/// `carType`); blank means none. Returns the name as the car type spells it.
fn check_car_type_name(name: &str, car_types: &[CarType]) -> DomainResult<Option<String>> {
    if name.trim().is_empty() {
        return Ok(None);
    }
    car_type_named(name, car_types)
        .map(|car_type| Some(car_type.name.clone()))
        .ok_or_else(|| DomainError::on_field(ErrorKey::InvalidInput, "carType"))
}

/// Names, driver and bank details: the fields an add and an edit share.
fn apply_details(user: &mut User, fields: &AccountFields, car_types: &[CarType]) -> DomainResult<()> {
    if let Some(name) = fields.firstName.as_deref() {
        user.firstName = required_name(Some(name), "firstName")?;
    }
    if let Some(name) = fields.lastName.as_deref() {
        user.lastName = required_name(Some(name), "lastName")?;
    }
    // Driver details on another type of account are a mistake; blanks (a
    // table sending back every column) are not.
    let given = |text: &Option<String>| text.as_deref().is_some_and(|text| !text.trim().is_empty());
    let driver_only = [
        (given(&fields.carType), "carType"),
        (given(&fields.vehicleMake), "vehicleMake"),
        (given(&fields.vehicleModel), "vehicleModel"),
        (given(&fields.vehicleNumber), "vehicleNumber"),
        (given(&fields.vehicleColor), "vehicleColor"),
        (given(&fields.vehicleYear), "vehicleYear"),
        (given(&fields.other_info), "other_info"),
    ];
    if user.usertype != Role::Driver
        && let Some((_, field)) = driver_only.iter().find(|(given, _)| *given)
    {
        return fail(ErrorKey::InvalidInput, field);
    }
    if let Some(name) = fields.carType.as_deref() {
        user.carType = check_car_type_name(name, car_types)?;
    }
    if let Some(year) = fields.vehicleYear.as_deref() {
        user.vehicleYear =
            if year.trim().is_empty() { String::new() } else { crate::signup::check_vehicle_year(year)? };
    }
    let texts: [(&Option<String>, &mut String, usize, &'static str); 7] = [
        (&fields.vehicleMake, &mut user.vehicleMake, MAX_SHORT_TEXT_CHARS, "vehicleMake"),
        (&fields.vehicleModel, &mut user.vehicleModel, MAX_SHORT_TEXT_CHARS, "vehicleModel"),
        (&fields.vehicleNumber, &mut user.vehicleNumber, MAX_SHORT_TEXT_CHARS, "vehicleNumber"),
        (&fields.vehicleColor, &mut user.vehicleColor, MAX_SHORT_TEXT_CHARS, "vehicleColor"),
        (&fields.other_info, &mut user.other_info, MAX_INFO_CHARS, "other_info"),
        (&fields.bankName, &mut user.bankName, MAX_SHORT_TEXT_CHARS, "bankName"),
        (&fields.bankCode, &mut user.bankCode, MAX_SHORT_TEXT_CHARS, "bankCode"),
    ];
    for (given, target, max_chars, field) in texts {
        if let Some(text) = given {
            *target = text_within(text, max_chars, field)?;
        }
    }
    if let Some(account) = fields.bankAccount.as_deref() {
        user.bankAccount = text_within(account, MAX_SHORT_TEXT_CHARS, "bankAccount")?;
    }
    Ok(())
}

/// The fleet a driver belongs to. A fleet admin may not choose (their drivers
/// are theirs: `not_allowed`); an admin names a fleet admin (`owner` is the
/// account the id names, looked up by the caller: anything but a fleet admin
/// is `invalid_input`), and only drivers belong to fleets.
pub fn check_fleet_choice(editor: &Principal, account_role: Role, owner: Option<&User>) -> DomainResult<()> {
    if editor.role != Role::Admin {
        return fail(ErrorKey::NotAllowed, "fleetadmin");
    }
    if account_role != Role::Driver {
        return fail(ErrorKey::InvalidInput, "fleetadmin");
    }
    match owner {
        Some(owner) if owner.usertype == Role::Fleetadmin => Ok(()),
        _ => fail(ErrorKey::InvalidInput, "fleetadmin"),
    }
}

/// A new account as a manager adds it (spec §5 "Admin panel"): a user type,
/// both names, contacts as [`check_contacts`] wants them, and the details
/// that apply to the type. It is made by an admin (`regType` admin, so its
/// e-mail and phone stay fixed on the profile, spec §2), approved unless the
/// manager says otherwise, and `fleet` is its fleet admin (the adding fleet
/// admin's id for their drivers, spec §6, else the admin's choice). The
/// referral code is drawn by the caller, who may have to draw again.
pub fn new_account(
    id: UserId,
    now: Millis,
    fields: &AccountFields,
    fleet: Option<UserId>,
    car_types: &[CarType],
) -> DomainResult<User> {
    let Some(role) = fields.usertype else {
        return fail(ErrorKey::InvalidInput, "usertype");
    };
    let contacts = check_contacts(fields.email.as_deref(), fields.mobile.as_deref())?;
    let mut user = User::new(id, role, now);
    user.firstName = required_name(fields.firstName.as_deref(), "firstName")?;
    user.lastName = required_name(fields.lastName.as_deref(), "lastName")?;
    apply_details(&mut user, fields, car_types)?;
    user.email = contacts.email;
    user.mobile = contacts.mobile;
    user.regType = RegType::Admin;
    user.approved = fields.approved.unwrap_or(true);
    user.fleetadmin = if role == Role::Driver { fleet } else { None };
    Ok(user)
}

/// An edit of an existing account by its manager. E-mail and mobile are set
/// only when adding (spec §5): sending a different one is
/// `contact_not_editable`, the same one again is not a change. The user type
/// does not change (`not_allowed` on `usertype`). Nobody takes away their own
/// approval, which would lock them out (`not_allowed` on `approved`). The
/// fleet is set by the caller after [`check_fleet_choice`].
pub fn edit_account(
    editor: &Principal,
    current: &User,
    fields: &AccountFields,
    car_types: &[CarType],
) -> DomainResult<User> {
    if fields.usertype.is_some_and(|role| role != current.usertype) {
        return fail(ErrorKey::NotAllowed, "usertype");
    }
    if let Some(email) = fields.email.as_deref()
        && !same_email(email, &current.email)
    {
        return fail(ErrorKey::ContactNotEditable, "email");
    }
    if let Some(mobile) = fields.mobile.as_deref()
        && comparable_phone(mobile) != comparable_phone(&current.mobile)
    {
        return fail(ErrorKey::ContactNotEditable, "mobile");
    }
    if fields.approved == Some(false) && current.id == editor.id {
        return fail(ErrorKey::NotAllowed, "approved");
    }
    let mut user = current.clone();
    apply_details(&mut user, fields, car_types)?;
    if let Some(approved) = fields.approved {
        user.approved = approved;
    }
    Ok(user)
}

/// Approving (or withdrawing approval of) an account; nobody withdraws their own.
pub fn set_approval(editor: &Principal, current: &User, approved: bool) -> DomainResult<User> {
    if !approved && current.id == editor.id {
        return fail(ErrorKey::NotAllowed, "approved");
    }
    let mut user = current.clone();
    user.approved = approved;
    Ok(user)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::test_support::*;
    use serde_json::json;

    fn admin() -> Principal {
        Principal::new(UserId::from_u128(31), Role::Admin)
    }

    fn fleet_admin() -> Principal {
        Principal::new(UserId::from_u128(21), Role::Fleetadmin)
    }

    fn fields(role: Role) -> AccountFields {
        AccountFields {
            usertype: Some(role),
            firstName: Some(" Dana ".into()),
            lastName: Some("Driver".into()),
            email: Some(" Dana@Example.com ".into()),
            mobile: Some("+1 410 555 0199".into()),
            ..AccountFields::default()
        }
    }

    #[test]
    fn an_added_account_is_made_by_an_admin_approved_and_normalised() {
        let user = new_account(UserId::from_u128(5), 42, &fields(Role::Rider), None, &[]).unwrap();
        assert_eq!(user.usertype, Role::Rider);
        assert_eq!((user.firstName.as_str(), user.lastName.as_str()), ("Dana", "Driver"));
        assert_eq!((user.email.as_str(), user.mobile.as_str()), ("dana@example.com", "+14105550199"));
        assert_eq!(user.regType, RegType::Admin, "spec §2: admin-made accounts keep their contacts fixed");
        assert!(user.approved);
        assert_eq!(user.createdAt, 42);
        let pending = AccountFields { approved: Some(false), ..fields(Role::Rider) };
        assert!(!new_account(UserId::from_u128(5), 42, &pending, None, &[]).unwrap().approved);
    }

    #[test]
    fn an_added_account_needs_a_type_and_names() {
        let no_type = AccountFields { usertype: None, ..fields(Role::Rider) };
        assert_eq!(
            failure(new_account(UserId::from_u128(5), 0, &no_type, None, &[])),
            (ErrorKey::InvalidInput, Some("usertype"))
        );
        let no_name = AccountFields { firstName: Some("  ".into()), ..fields(Role::Rider) };
        assert_eq!(
            failure(new_account(UserId::from_u128(5), 0, &no_name, None, &[])),
            (ErrorKey::InvalidInput, Some("firstName"))
        );
        let no_last = AccountFields { lastName: None, ..fields(Role::Rider) };
        assert_eq!(
            failure(new_account(UserId::from_u128(5), 0, &no_last, None, &[])),
            (ErrorKey::InvalidInput, Some("lastName"))
        );
        let no_contact = AccountFields { email: None, mobile: None, ..fields(Role::Rider) };
        assert_eq!(
            failure(new_account(UserId::from_u128(5), 0, &no_contact, None, &[])),
            (ErrorKey::EmailOrMobileIssue, Some("contact"))
        );
    }

    #[test]
    fn drivers_get_their_fleet_and_a_known_car_type_others_neither() {
        // spec §6: new drivers a fleet admin adds get their id as fleetadmin
        let fleet = Some(UserId::from_u128(21));
        let driver = AccountFields {
            carType: Some("Economy".into()),
            vehicleNumber: Some(" MD-1 ".into()),
            ..fields(Role::Driver)
        };
        let user = new_account(UserId::from_u128(5), 0, &driver, fleet, &[economy()]).unwrap();
        assert_eq!(user.fleetadmin, fleet);
        assert_eq!(user.carType.as_deref(), Some("Economy"));
        assert_eq!(user.vehicleNumber, "MD-1");
        let unknown = AccountFields { carType: Some("Limo".into()), ..fields(Role::Driver) };
        assert_eq!(
            failure(new_account(UserId::from_u128(5), 0, &unknown, fleet, &[economy()])),
            (ErrorKey::InvalidInput, Some("carType"))
        );
        let rider = new_account(UserId::from_u128(6), 0, &fields(Role::Rider), fleet, &[]).unwrap();
        assert_eq!(rider.fleetadmin, None);
        let rider_with_car = AccountFields { carType: Some("Economy".into()), ..fields(Role::Rider) };
        assert_eq!(
            failure(new_account(UserId::from_u128(6), 0, &rider_with_car, None, &[economy()])),
            (ErrorKey::InvalidInput, Some("carType"))
        );
    }

    #[test]
    fn an_edit_may_not_change_the_contacts_or_the_type() {
        // spec §5 Admin panel: mobile and e-mail are editable only when adding
        let current = new_account(UserId::from_u128(5), 0, &fields(Role::Driver), None, &[]).unwrap();
        let new_email = AccountFields { email: Some("other@example.com".into()), ..AccountFields::default() };
        assert_eq!(
            failure(edit_account(&admin(), &current, &new_email, &[])),
            (ErrorKey::ContactNotEditable, Some("email"))
        );
        let new_mobile = AccountFields { mobile: Some("+14105550000".into()), ..AccountFields::default() };
        assert_eq!(
            failure(edit_account(&admin(), &current, &new_mobile, &[])),
            (ErrorKey::ContactNotEditable, Some("mobile"))
        );
        let new_type = AccountFields { usertype: Some(Role::Admin), ..AccountFields::default() };
        assert_eq!(failure(edit_account(&admin(), &current, &new_type, &[])), (ErrorKey::NotAllowed, Some("usertype")));
        // Sending back what the table shows is not a change.
        let same = AccountFields { lastName: Some("Dunn".into()), ..fields(Role::Driver) };
        let edited = edit_account(&fleet_admin(), &current, &same, &[]).unwrap();
        assert_eq!(edited.lastName, "Dunn");
        assert_eq!(edited.email, current.email);
        assert_eq!(ErrorKey::ContactNotEditable.kind(), crate::ErrorKind::Forbidden);
    }

    #[test]
    fn nobody_withdraws_their_own_approval() {
        let me = User::new(admin().id, Role::Admin, 0);
        let unapprove = AccountFields { approved: Some(false), ..AccountFields::default() };
        assert_eq!(failure(edit_account(&admin(), &me, &unapprove, &[])), (ErrorKey::NotAllowed, Some("approved")));
        assert_eq!(failure(set_approval(&admin(), &me, false)), (ErrorKey::NotAllowed, Some("approved")));
        let other = User::new(UserId::from_u128(7), Role::Driver, 0);
        assert!(!set_approval(&admin(), &other, false).unwrap().approved);
        assert!(set_approval(&admin(), &other, true).unwrap().approved);
    }

    #[test]
    fn only_admins_choose_a_drivers_fleet_and_only_a_fleet_admin_owns_one() {
        let owner = User::new(UserId::from_u128(21), Role::Fleetadmin, 0);
        let rider = User::new(UserId::from_u128(1), Role::Rider, 0);
        assert!(check_fleet_choice(&admin(), Role::Driver, Some(&owner)).is_ok());
        assert_eq!(
            failure(check_fleet_choice(&fleet_admin(), Role::Driver, Some(&owner))),
            (ErrorKey::NotAllowed, Some("fleetadmin"))
        );
        assert_eq!(
            failure(check_fleet_choice(&admin(), Role::Rider, Some(&owner))),
            (ErrorKey::InvalidInput, Some("fleetadmin"))
        );
        assert_eq!(
            failure(check_fleet_choice(&admin(), Role::Driver, Some(&rider))),
            (ErrorKey::InvalidInput, Some("fleetadmin"))
        );
        assert_eq!(
            failure(check_fleet_choice(&admin(), Role::Driver, None)),
            (ErrorKey::InvalidInput, Some("fleetadmin"))
        );
    }

    #[test]
    fn account_fields_tell_null_from_missing_for_the_fleet() {
        let missing: AccountFields = serde_json::from_value(json!({})).unwrap();
        assert_eq!(missing.fleetadmin, None);
        let null: AccountFields = serde_json::from_value(json!({ "fleetadmin": null })).unwrap();
        assert_eq!(null.fleetadmin, Some(None));
        let id = UserId::from_u128(21);
        let set: AccountFields = serde_json::from_value(json!({ "fleetadmin": id })).unwrap();
        assert_eq!(set.fleetadmin, Some(Some(id)));
    }
}
