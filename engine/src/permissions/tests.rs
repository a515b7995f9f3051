//! The permission matrix (every action for every role and resource), the
//! route table, the list scopes and contact masking.

use super::*;
use crate::error::{DomainResult, ErrorKey, ErrorKind};
use crate::ids::UserId;
use crate::model::{Role, Settings};
use proptest::prelude::*;
use std::collections::BTreeSet;

fn id(value: u128) -> UserId {
    UserId::from_u128(value)
}

// The world of the matrix: two of each role; rider 1, driver 11 (of fleet
// 21), fleet admin 21 and admin 31 are the callers, the others are "other".
const RIDER: u128 = 1;
const OTHER_RIDER: u128 = 2;
const DRIVER: u128 = 11;
const OTHER_DRIVER: u128 = 12;
const FLEET: u128 = 21;
const OTHER_FLEET: u128 = 22;
const ADMIN: u128 = 31;
const OTHER_ADMIN: u128 = 32;

fn caller(role: Role) -> Principal {
    match role {
        Role::Rider => Principal::new(id(RIDER), role),
        Role::Driver => Principal { id: id(DRIVER), role, fleet: Some(id(FLEET)) },
        Role::Fleetadmin => Principal::new(id(FLEET), role),
        Role::Admin => Principal::new(id(ADMIN), role),
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    Allowed,
    NotLoggedIn,
    NotAllowed,
    NotFound,
    DemoMode,
}

fn outcome_of(result: DomainResult<()>) -> Outcome {
    match result {
        Ok(()) => Outcome::Allowed,
        Err(error) => match error.key {
            ErrorKey::NotLoggedIn => Outcome::NotLoggedIn,
            ErrorKey::NotAllowed => Outcome::NotAllowed,
            ErrorKey::NotFound => Outcome::NotFound,
            ErrorKey::DemoMode => Outcome::DemoMode,
            other => panic!("unexpected key {other}"),
        },
    }
}

/// The bookings of the matrix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum BookingCase {
    /// Rider 1's, accepted by driver 11 of fleet 21.
    Assigned,
    /// Rider 1's, offered to driver 11, no driver yet.
    Offered,
    /// Rider 2's, accepted by driver 12 of fleet 22.
    Foreign,
    /// Rider 2's, offered to driver 12 only.
    ForeignOpen,
}

const BOOKING_CASES: [BookingCase; 4] =
    [BookingCase::Assigned, BookingCase::Offered, BookingCase::Foreign, BookingCase::ForeignOpen];

fn booking_parts(case: BookingCase) -> (UserId, Option<UserId>, BTreeSet<UserId>, Option<UserId>) {
    match case {
        BookingCase::Assigned => (id(RIDER), Some(id(DRIVER)), BTreeSet::new(), Some(id(FLEET))),
        BookingCase::Offered => (id(RIDER), None, BTreeSet::from([id(DRIVER)]), None),
        BookingCase::Foreign => (id(OTHER_RIDER), Some(id(OTHER_DRIVER)), BTreeSet::new(), Some(id(OTHER_FLEET))),
        BookingCase::ForeignOpen => (id(OTHER_RIDER), None, BTreeSet::from([id(OTHER_DRIVER)]), None),
    }
}

/// Which bookings each caller knows of (spec §6), written out by hand.
fn sees(role: Role, case: BookingCase) -> bool {
    use BookingCase::*;
    match role {
        Role::Rider => matches!(case, Assigned | Offered),
        Role::Driver => matches!(case, Assigned | Offered),
        Role::Fleetadmin => matches!(case, Assigned),
        Role::Admin => true,
    }
}

/// What a role needs with a booking to do a booking action.
#[derive(Debug, Clone, Copy)]
enum Need {
    Never,
    Any,
    Visible,
    Assigned,
}

/// The booking rows of the matrix: (rider, driver, fleet admin, admin).
/// Spec §6 and DESIGN.md's contract table.
fn booking_needs(action: Action) -> [Need; 4] {
    use Need::*;
    match action {
        Action::BookingRead => [Visible, Visible, Visible, Any],
        Action::BookingAccept | Action::BookingDecline => [Never, Visible, Never, Never],
        Action::BookingArrive | Action::BookingStart | Action::BookingReach => [Never, Assigned, Never, Never],
        Action::BookingPay => [Visible, Assigned, Never, Never],
        Action::BookingRate => [Visible, Never, Never, Never],
        Action::BookingCancel => [Visible, Visible, Never, Any],
        Action::BookingAssign | Action::BookingCandidates => [Never, Never, Never, Any],
        Action::BookingChat => [Visible, Assigned, Never, Never],
        Action::BookingTracking => [Visible, Assigned, Visible, Any],
        Action::ParcelImageUpload => [Never, Assigned, Never, Never],
        Action::SosRaise => [Visible, Assigned, Never, Never],
        Action::BookingSettle | Action::BookingComplete | Action::BookingLedger | Action::BookingChatAudit => {
            [Never, Never, Visible, Any]
        }
        Action::BookingRefund => [Never, Never, Never, Any],
        Action::BookingRebook => [Visible, Never, Never, Any],
        other => panic!("{other:?} is not a booking action"),
    }
}

fn role_index(role: Role) -> usize {
    match role {
        Role::Rider => 0,
        Role::Driver => 1,
        Role::Fleetadmin => 2,
        Role::Admin => 3,
    }
}

fn expected_for_booking(role: Role, action: Action, case: BookingCase) -> Outcome {
    let (_, driver, _, _) = booking_parts(case);
    let taken_by_another_driver = driver.is_some_and(|driver| driver != id(DRIVER));
    match booking_needs(action)[role_index(role)] {
        Need::Never => Outcome::NotAllowed,
        Need::Any => Outcome::Allowed,
        // Invariant 2: a losing driver's accept reaches the state machine for its 409.
        Need::Visible
            if role == Role::Driver
                && matches!(action, Action::BookingAccept | Action::BookingDecline)
                && taken_by_another_driver =>
        {
            Outcome::Allowed
        }
        Need::Visible if sees(role, case) => Outcome::Allowed,
        Need::Visible => Outcome::NotFound,
        Need::Assigned if driver == Some(id(DRIVER)) => Outcome::Allowed,
        Need::Assigned if sees(role, case) => Outcome::NotAllowed,
        Need::Assigned => Outcome::NotFound,
    }
}

/// The accounts of the matrix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum UserCase {
    Myself,
    FleetDriver,
    OtherFleetDriver,
    OtherRider,
    OtherAdmin,
}

const USER_CASES: [UserCase; 5] =
    [UserCase::Myself, UserCase::FleetDriver, UserCase::OtherFleetDriver, UserCase::OtherRider, UserCase::OtherAdmin];

fn user_ref(principal: &Principal, case: UserCase) -> UserRef {
    match case {
        UserCase::Myself => UserRef { id: principal.id, role: principal.role, fleetadmin: principal.fleet },
        UserCase::FleetDriver => UserRef { id: id(DRIVER), role: Role::Driver, fleetadmin: Some(id(FLEET)) },
        UserCase::OtherFleetDriver => {
            UserRef { id: id(OTHER_DRIVER), role: Role::Driver, fleetadmin: Some(id(OTHER_FLEET)) }
        }
        UserCase::OtherRider => UserRef { id: id(OTHER_RIDER), role: Role::Rider, fleetadmin: None },
        UserCase::OtherAdmin => UserRef { id: id(OTHER_ADMIN), role: Role::Admin, fleetadmin: None },
    }
}

fn expected_for_user(role: Role, action: Action, case: UserCase) -> Outcome {
    // The driver caller *is* the fleet's driver.
    let is_self = case == UserCase::Myself || (role == Role::Driver && case == UserCase::FleetDriver);
    match action {
        // DESIGN.md contract: a wallet is read by its owner and admins.
        Action::WalletRead => match role {
            _ if is_self => Outcome::Allowed,
            Role::Admin => Outcome::Allowed,
            Role::Fleetadmin if case == UserCase::FleetDriver => Outcome::NotAllowed,
            _ => Outcome::NotFound,
        },
        // Spec §6: admins edit everyone; fleet admins their own drivers.
        Action::UserEdit | Action::UserApprove | Action::UserDelete => match role {
            Role::Rider | Role::Driver => Outcome::NotAllowed,
            Role::Admin if action == Action::UserDelete && is_self => Outcome::NotAllowed,
            Role::Admin => Outcome::Allowed,
            Role::Fleetadmin if is_self => Outcome::NotAllowed,
            Role::Fleetadmin if case == UserCase::FleetDriver => Outcome::Allowed,
            Role::Fleetadmin => Outcome::NotFound,
        },
        // Licences belong to drivers: their own, a fleet's, any for admins.
        Action::LicenseUpload | Action::LicenseRead => {
            let is_driver_account = matches!(case, UserCase::FleetDriver | UserCase::OtherFleetDriver)
                || (case == UserCase::Myself && role == Role::Driver);
            match role {
                Role::Rider => Outcome::NotAllowed,
                _ if is_self && is_driver_account => Outcome::Allowed,
                _ if is_self => Outcome::NotAllowed,
                Role::Admin if is_driver_account => Outcome::Allowed,
                Role::Admin => Outcome::NotAllowed,
                Role::Fleetadmin if case == UserCase::FleetDriver => Outcome::Allowed,
                _ => Outcome::NotFound,
            }
        }
        // The console messages drivers: any for admins, a fleet's own.
        Action::DriverMessage => {
            let driver = matches!(case, UserCase::FleetDriver | UserCase::OtherFleetDriver);
            match role {
                Role::Rider | Role::Driver => Outcome::NotAllowed,
                Role::Admin if driver => Outcome::Allowed,
                Role::Fleetadmin if case == UserCase::FleetDriver => Outcome::Allowed,
                _ => Outcome::NotFound,
            }
        }
        other => panic!("{other:?} is not a user action"),
    }
}

fn expected_for_new_user(role: Role, new_role: Role) -> Outcome {
    // Spec §6: a fleet admin adds drivers only.
    match (role, new_role) {
        (Role::Admin, _) | (Role::Fleetadmin, Role::Driver) => Outcome::Allowed,
        _ => Outcome::NotAllowed,
    }
}

/// Who may do the actions that have no resource.
fn expected_without_resource(role: Role, action: Action, settings: &Settings) -> Outcome {
    use Role::{Admin, Driver, Fleetadmin, Rider};
    let allowed: &[Role] = match action {
        Action::BookingList => &[Rider, Driver, Fleetadmin, Admin],
        Action::BookingCreate | Action::BookingEstimate => &[Rider, Admin],
        Action::DriverStatus | Action::DriverLocation | Action::DriverTasks => &[Driver],
        Action::WalletCredit | Action::WalletAdjust | Action::WithdrawComplete => &[Admin],
        Action::WithdrawCreate if settings.RiderWithDraw => &[Rider, Driver],
        Action::WithdrawCreate => &[Driver],
        Action::WithdrawList => &[Rider, Driver, Admin],
        Action::UsersList => &[Fleetadmin, Admin],
        Action::ProfileUpdate | Action::Upload | Action::CancelReasonsRead => &[Rider, Driver, Fleetadmin, Admin],
        Action::CarTypesRead | Action::SettingsRead | Action::LanguagesRead => &[Rider, Driver, Fleetadmin, Admin],
        Action::PromosRead => &[Rider, Admin],
        Action::CarTypesWrite
        | Action::CancelReasonsWrite
        | Action::PromoAdd
        | Action::PromoEdit
        | Action::NotificationsRead
        | Action::NotificationSend
        | Action::NotificationDelete
        | Action::SettingsWrite
        | Action::PaymentSettingsRead
        | Action::PaymentSettingsWrite
        | Action::LanguagesWrite => &[Admin],
        Action::ReportsRead | Action::ReportsExport => &[Fleetadmin, Admin],
        Action::DashboardRead | Action::BookingExport => &[Fleetadmin, Admin],
        Action::DriverEarningsRead => &[Driver, Fleetadmin, Admin],
        Action::SosRead | Action::SosManage | Action::OwedRead => &[Fleetadmin, Admin],
        other => panic!("{other:?} needs a resource"),
    };
    if allowed.contains(&role) { Outcome::Allowed } else { Outcome::NotAllowed }
}

/// Spec §5 "Admin panel" guarded mutations, §4 cancel button, §6 export.
fn guarded_in_demo(role: Role, action: Action) -> bool {
    match action {
        Action::BookingCancel => matches!(role, Role::Rider | Role::Admin),
        Action::BookingAssign
        | Action::BookingSettle
        | Action::BookingComplete
        | Action::BookingRefund
        | Action::WalletCredit
        | Action::WalletAdjust
        | Action::WithdrawComplete
        | Action::UserAdd
        | Action::UserDelete
        | Action::CarTypesWrite
        | Action::CancelReasonsWrite
        | Action::PromoEdit
        | Action::NotificationSend
        | Action::DriverMessage
        | Action::SettingsWrite
        | Action::PaymentSettingsWrite
        | Action::LanguagesWrite
        | Action::ReportsExport
        | Action::BookingExport => true,
        _ => false,
    }
}

/// Which kind of resource each action takes; exhaustive, so a new action
/// must join the matrix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Nothing,
    Booking,
    User,
    NewUser,
}

fn kind(action: Action) -> Kind {
    match action {
        Action::BookingRead
        | Action::BookingAccept
        | Action::BookingDecline
        | Action::BookingArrive
        | Action::BookingStart
        | Action::BookingReach
        | Action::BookingPay
        | Action::BookingRate
        | Action::BookingCancel
        | Action::BookingAssign
        | Action::BookingChat
        | Action::BookingTracking
        | Action::BookingCandidates
        | Action::SosRaise
        | Action::ParcelImageUpload
        | Action::BookingSettle
        | Action::BookingComplete
        | Action::BookingRefund
        | Action::BookingLedger
        | Action::BookingChatAudit
        | Action::BookingRebook => Kind::Booking,
        Action::WalletRead
        | Action::UserEdit
        | Action::UserDelete
        | Action::UserApprove
        | Action::LicenseUpload
        | Action::LicenseRead
        | Action::DriverMessage => Kind::User,
        Action::UserAdd => Kind::NewUser,
        Action::BookingList
        | Action::BookingCreate
        | Action::BookingEstimate
        | Action::DriverStatus
        | Action::DriverLocation
        | Action::DriverTasks
        | Action::WalletCredit
        | Action::WalletAdjust
        | Action::WithdrawCreate
        | Action::WithdrawList
        | Action::WithdrawComplete
        | Action::UsersList
        | Action::ProfileUpdate
        | Action::CarTypesRead
        | Action::CarTypesWrite
        | Action::CancelReasonsRead
        | Action::CancelReasonsWrite
        | Action::PromosRead
        | Action::PromoAdd
        | Action::PromoEdit
        | Action::NotificationsRead
        | Action::NotificationSend
        | Action::NotificationDelete
        | Action::SettingsRead
        | Action::SettingsWrite
        | Action::LanguagesRead
        | Action::LanguagesWrite
        | Action::ReportsRead
        | Action::ReportsExport
        | Action::DriverEarningsRead
        | Action::DashboardRead
        | Action::BookingExport
        | Action::SosRead
        | Action::SosManage
        | Action::OwedRead
        | Action::PaymentSettingsRead
        | Action::PaymentSettingsWrite
        | Action::Upload => Kind::Nothing,
    }
}

fn settings_variants() -> Vec<Settings> {
    let mut variants = Vec::new();
    for demo in [false, true] {
        for rider_withdraw in [false, true] {
            variants.push(Settings {
                AllowCriticalEditsAdmin: !demo,
                RiderWithDraw: rider_withdraw,
                ..Settings::default()
            });
        }
    }
    variants
}

#[test]
fn every_action_for_every_role_and_resource_matches_the_matrix() {
    // spec §2 route table, §5 demo mode, §6 roles; DESIGN.md invariant 6 and contract table
    let mut checked = 0;
    for settings in settings_variants() {
        for action in Action::ALL {
            for role in Role::ALL {
                let principal = caller(role);
                let mut cases: Vec<(String, Resource<'_>, Outcome)> = Vec::new();
                let booking_sets: Vec<_> = BOOKING_CASES.iter().map(|case| (*case, booking_parts(*case))).collect();
                match kind(action) {
                    Kind::Nothing => {
                        cases.push(("none".into(), Resource::None, expected_without_resource(role, action, &settings)))
                    }
                    Kind::Booking => {
                        for (case, (customer, driver, requested, fleetadmin)) in &booking_sets {
                            let booking = BookingRef {
                                customer: *customer,
                                driver: *driver,
                                requested_drivers: requested,
                                fleetadmin: *fleetadmin,
                            };
                            let expected = expected_for_booking(role, action, *case);
                            cases.push((format!("{case:?}"), Resource::Booking(booking), expected));
                        }
                    }
                    Kind::User => {
                        for case in USER_CASES {
                            let user = Resource::User(user_ref(&principal, case));
                            cases.push((format!("{case:?}"), user, expected_for_user(role, action, case)));
                        }
                    }
                    Kind::NewUser => {
                        for new_role in Role::ALL {
                            let resource = Resource::NewUser { role: new_role };
                            cases.push((format!("new {new_role:?}"), resource, expected_for_new_user(role, new_role)));
                        }
                    }
                }
                for (label, resource, mut expected) in cases {
                    if expected == Outcome::Allowed && settings.demo_mode() && guarded_in_demo(role, action) {
                        expected = Outcome::DemoMode;
                    }
                    let actual = outcome_of(authorize(Some(&principal), action, resource, &settings));
                    assert_eq!(
                        actual,
                        expected,
                        "{action:?} by {role:?} on {label} (demo {}, RiderWithDraw {})",
                        settings.demo_mode(),
                        settings.RiderWithDraw
                    );
                    // Logged out: only the public reads pass, and never with a reason beyond the session.
                    let logged_out = outcome_of(authorize(None, action, resource, &settings));
                    let expected_logged_out = if action.is_public() { Outcome::Allowed } else { Outcome::NotLoggedIn };
                    assert_eq!(logged_out, expected_logged_out, "{action:?} logged out on {label}");
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 1_000, "the matrix checked only {checked} cases");
}

#[test]
fn the_refusals_carry_the_right_kinds() {
    // DESIGN.md API conventions: 401 no session, 403 role or demo mode, 404 unknown
    assert_eq!(ErrorKey::NotLoggedIn.kind(), ErrorKind::Unauthenticated);
    assert_eq!(ErrorKey::NotAllowed.kind(), ErrorKind::Forbidden);
    assert_eq!(ErrorKey::NotFound.kind(), ErrorKind::NotFound);
    assert_eq!(ErrorKey::DemoMode.kind(), ErrorKind::Forbidden);
}

#[test]
fn only_the_landing_pages_data_is_public() {
    let public: Vec<Action> = Action::ALL.into_iter().filter(|action| action.is_public()).collect();
    assert_eq!(public, [Action::CarTypesRead, Action::SettingsRead, Action::LanguagesRead]);
}

#[test]
fn an_action_given_the_wrong_kind_of_resource_is_not_found() {
    // fail closed: a caller's mix-up never grants access
    let admin = caller(Role::Admin);
    let settings = Settings::default();
    let user = Resource::User(user_ref(&admin, UserCase::OtherRider));
    assert_eq!(outcome_of(authorize(Some(&admin), Action::BookingRead, Resource::None, &settings)), Outcome::NotFound);
    assert_eq!(outcome_of(authorize(Some(&admin), Action::BookingRead, user, &settings)), Outcome::NotFound);
    assert_eq!(outcome_of(authorize(Some(&admin), Action::UserEdit, Resource::None, &settings)), Outcome::NotFound);
    assert_eq!(outcome_of(authorize(Some(&admin), Action::UserAdd, user, &settings)), Outcome::NotFound);
}

#[test]
fn a_wrong_role_is_not_allowed_before_the_resource_is_looked_at() {
    // spec §6: a rider cannot tell another rider's booking from a missing one by trying a driver step
    let rider = caller(Role::Rider);
    let (customer, driver, requested, fleetadmin) = booking_parts(BookingCase::Foreign);
    let foreign = BookingRef { customer, driver, requested_drivers: &requested, fleetadmin };
    let settings = Settings::default();
    assert_eq!(
        outcome_of(authorize(Some(&rider), Action::BookingArrive, Resource::Booking(foreign), &settings)),
        Outcome::NotAllowed
    );
    assert_eq!(
        outcome_of(authorize(Some(&rider), Action::BookingRead, Resource::Booking(foreign), &settings)),
        Outcome::NotFound
    );
}

#[test]
fn demo_mode_never_reveals_a_resource_the_caller_may_not_know() {
    // ownership is answered before demo mode, so a refusal never confirms an id
    let rider = caller(Role::Rider);
    let (customer, driver, requested, fleetadmin) = booking_parts(BookingCase::Foreign);
    let foreign = BookingRef { customer, driver, requested_drivers: &requested, fleetadmin };
    let demo = Settings { AllowCriticalEditsAdmin: false, ..Settings::default() };
    assert_eq!(
        outcome_of(authorize(Some(&rider), Action::BookingCancel, Resource::Booking(foreign), &demo)),
        Outcome::NotFound
    );
}

#[test]
fn booking_refs_come_from_bookings_and_users_from_users() {
    let mut user = crate::model::User::new(id(OTHER_DRIVER), Role::Driver, 0);
    user.fleetadmin = Some(id(OTHER_FLEET));
    assert_eq!(
        UserRef::from(&user),
        UserRef { id: id(OTHER_DRIVER), role: Role::Driver, fleetadmin: Some(id(OTHER_FLEET)) }
    );
    assert_eq!(
        Principal::from_user(&user),
        Principal { id: id(OTHER_DRIVER), role: Role::Driver, fleet: Some(id(OTHER_FLEET)) }
    );
}

// ---- Pages -------------------------------------------------------------

/// Spec §2, copied row by row; `None` is a public route.
fn route_table() -> Vec<(&'static str, Option<Vec<Role>>)> {
    use Role::{Admin, Driver, Fleetadmin, Rider};
    let mut table: Vec<(&'static str, Option<Vec<Role>>)> =
        ["/", "/contact-us", "/about-us", "/privacy-policy", "/login"].into_iter().map(|path| (path, None)).collect();
    table.push(("/bookings", Some(vec![Rider, Admin, Driver, Fleetadmin])));
    table.push(("/profile", Some(vec![Rider, Admin, Driver, Fleetadmin])));
    for path in ["/dashboard", "/drivers", "/driverearning"] {
        table.push((path, Some(vec![Admin, Fleetadmin])));
    }
    for path in [
        "/cartypes",
        "/cancelreasons",
        "/addbookings",
        "/promos",
        "/riders",
        "/alladmin",
        "/fleetadmins",
        "/notifications",
        "/earningreports",
        "/addtowallet",
        "/withdraws",
        "/settings",
        "/appinfo",
        "/languagesetting",
    ] {
        table.push((path, Some(vec![Admin])));
    }
    table
}

#[test]
fn every_route_of_the_table_admits_exactly_its_roles() {
    // spec §2: a protected route carries an allow-list; any other visitor goes to /login
    let table = route_table();
    assert_eq!(table.len(), Page::ALL.len());
    for (path, allowed) in table {
        let page = Page::from_path(path).unwrap_or_else(|| panic!("no page for {path}"));
        assert_eq!(page.path(), path);
        assert_eq!(page_allowed(None, page), allowed.is_none(), "{path} logged out");
        for role in Role::ALL {
            let expected = allowed.as_ref().is_none_or(|roles| roles.contains(&role));
            assert_eq!(page_allowed(Some(&caller(role)), page), expected, "{path} for {role:?}");
        }
    }
    assert_eq!(Page::from_path("/nowhere"), None);
}

#[test]
fn after_login_admins_and_fleet_admins_go_to_the_dashboard_drivers_to_bookings_others_home() {
    // spec §4 Login
    assert_eq!(home_after_login(Role::Admin), Page::Dashboard);
    assert_eq!(home_after_login(Role::Fleetadmin), Page::Dashboard);
    assert_eq!(home_after_login(Role::Driver), Page::Bookings);
    assert_eq!(home_after_login(Role::Rider), Page::Home);
}

#[test]
fn the_booking_form_shows_to_visitors_riders_and_admins_only() {
    // spec §2 Landing page: drivers see only a slogan
    assert!(landing_shows_booking_form(None));
    assert!(landing_shows_booking_form(Some(&caller(Role::Rider))));
    assert!(landing_shows_booking_form(Some(&caller(Role::Admin))));
    assert!(!landing_shows_booking_form(Some(&caller(Role::Driver))));
    assert!(!landing_shows_booking_form(Some(&caller(Role::Fleetadmin))));
}

// ---- Scopes ---------------------------------------------------------------

#[test]
fn booking_lists_are_scoped_by_role() {
    // spec §6: rider as customer, driver as driver, fleet admin by fleet, anyone else all
    assert_eq!(booking_list_scope(&caller(Role::Rider)), BookingScope::Customer(id(RIDER)));
    assert_eq!(booking_list_scope(&caller(Role::Driver)), BookingScope::Driver(id(DRIVER)));
    assert_eq!(booking_list_scope(&caller(Role::Fleetadmin)), BookingScope::Fleet(id(FLEET)));
    assert_eq!(booking_list_scope(&caller(Role::Admin)), BookingScope::All);
}

#[test]
fn user_lists_hide_admins_unless_asked_and_fleet_admins_see_their_drivers() {
    // spec §6: the admin-visible user list excludes admins; fleet admins see only their drivers
    let admin = caller(Role::Admin);
    let everyone = user_list_scope(&admin, None).unwrap();
    assert!(!everyone.roles.contains(&Role::Admin));
    assert_eq!(user_list_scope(&admin, Some(Role::Admin)).unwrap().roles, [Role::Admin]);
    let fleet = caller(Role::Fleetadmin);
    let scope = user_list_scope(&fleet, None).unwrap();
    assert_eq!(scope, UserScope { roles: vec![Role::Driver], fleet: Some(id(FLEET)) });
    assert_eq!(user_list_scope(&fleet, Some(Role::Driver)).unwrap(), scope);
    assert_eq!(user_list_scope(&fleet, Some(Role::Rider)).unwrap_err().key, ErrorKey::NotAllowed);
    for role in [Role::Rider, Role::Driver] {
        assert_eq!(user_list_scope(&caller(role), None).unwrap_err().key, ErrorKey::NotAllowed);
    }

    let mut mine = crate::model::User::new(id(DRIVER), Role::Driver, 0);
    mine.fleetadmin = Some(id(FLEET));
    let mut theirs = mine.clone();
    theirs.fleetadmin = Some(id(OTHER_FLEET));
    let other_admin = crate::model::User::new(id(OTHER_ADMIN), Role::Admin, 0);
    assert!(scope.matches(&mine));
    assert!(!scope.matches(&theirs));
    assert!(everyone.matches(&theirs));
    assert!(!everyone.matches(&other_admin));
}

#[test]
fn withdraw_lists_show_admins_everything_and_others_their_own() {
    assert_eq!(withdraw_list_scope(&caller(Role::Admin)), WithdrawScope::All);
    assert_eq!(withdraw_list_scope(&caller(Role::Driver)), WithdrawScope::Owner(id(DRIVER)));
}

#[test]
fn reports_cover_everything_for_admins_the_fleet_for_fleet_admins_and_a_drivers_own_months() {
    // spec §2 /driverearning and /earningreports, §6: fleet admins see their drivers only;
    // drivers get their own earnings per month
    let admin = caller(Role::Admin);
    let fleet = caller(Role::Fleetadmin);
    let driver = caller(Role::Driver);
    assert_eq!(report_scope(&admin, None).unwrap(), ReportScope::default());
    assert_eq!(report_scope(&fleet, None).unwrap(), ReportScope { fleet: Some(id(FLEET)), driver: None });
    assert_eq!(report_scope(&driver, None).unwrap(), ReportScope { fleet: None, driver: Some(id(DRIVER)) });
    assert_eq!(report_scope(&caller(Role::Rider), None).unwrap_err().key, ErrorKey::NotAllowed);

    let mine = user_ref(&fleet, UserCase::FleetDriver);
    let theirs = user_ref(&fleet, UserCase::OtherFleetDriver);
    let rider = user_ref(&fleet, UserCase::OtherRider);
    assert_eq!(
        report_scope(&admin, Some(theirs)).unwrap(),
        ReportScope { fleet: None, driver: Some(id(OTHER_DRIVER)) }
    );
    assert_eq!(
        report_scope(&fleet, Some(mine)).unwrap(),
        ReportScope { fleet: Some(id(FLEET)), driver: Some(id(DRIVER)) }
    );
    assert_eq!(report_scope(&fleet, Some(theirs)).unwrap_err().key, ErrorKey::NotFound);
    assert_eq!(report_scope(&fleet, Some(rider)).unwrap_err().key, ErrorKey::NotFound);
    assert_eq!(report_scope(&driver, Some(mine)).unwrap(), ReportScope { fleet: None, driver: Some(id(DRIVER)) });
    assert_eq!(report_scope(&driver, Some(theirs)).unwrap_err().key, ErrorKey::NotFound);
}

#[test]
fn drivers_a_fleet_admin_adds_belong_to_their_fleet() {
    // spec §6: new drivers they add get their id as fleetadmin
    assert_eq!(fleet_for_new_user(&caller(Role::Fleetadmin), Role::Driver), Some(id(FLEET)));
    assert_eq!(fleet_for_new_user(&caller(Role::Admin), Role::Driver), None);
    assert_eq!(fleet_for_new_user(&caller(Role::Fleetadmin), Role::Rider), None);
}

// ---- What is shown -------------------------------------------------------

#[test]
fn riders_do_not_see_the_driver_share_or_convenience_fee() {
    // spec §2 Bookings: both hidden from riders
    assert!(!can_see_fare_split(Role::Rider));
    for role in [Role::Driver, Role::Fleetadmin, Role::Admin] {
        assert!(can_see_fare_split(role));
    }
}

#[test]
fn masked_emails_keep_the_first_and_last_letters_and_the_domain() {
    // spec §6: contact data shows as hidden in demo mode
    assert_eq!(mask_contact("john@example.com"), "j***n@example.com");
    assert_eq!(mask_contact(" joh@example.com "), "j***h@example.com");
    assert_eq!(mask_contact("jo@example.com"), "j***@example.com");
    assert_eq!(mask_contact("j@example.com"), "j***@example.com");
    assert_eq!(mask_contact("@example.com"), "***@example.com");
}

#[test]
fn masked_phones_keep_the_last_two_digits() {
    // spec §6: contact data shows as hidden in demo mode
    assert_eq!(mask_contact("+44 7700 900123"), "***23");
    assert_eq!(mask_contact("5551234567"), "***67");
    assert_eq!(mask_contact("12"), "***");
    assert_eq!(mask_contact("unknown"), "***");
    assert_eq!(mask_contact("  "), "");
}

proptest! {
    #[test]
    fn a_masked_phone_shows_at_most_two_digits(text in "[+0-9 ()-]{0,24}") {
        let masked = mask_contact(&text);
        prop_assert!(masked.chars().filter(char::is_ascii_digit).count() <= 2);
    }

    #[test]
    fn a_masked_email_never_shows_its_local_part_whole(local in "[a-z0-9._+-]{1,20}", domain in "[a-z]{1,10}\\.[a-z]{2,4}") {
        let masked = mask_contact(&format!("{local}@{domain}"));
        let kept_domain = format!("@{domain}");
        prop_assert!(masked.ends_with(&kept_domain));
        prop_assert!(masked.contains("***"));
        let (shown, _) = masked.split_once("***").unwrap();
        prop_assert!(shown.chars().count() <= 1);
    }

    #[test]
    fn mask_contact_never_panics(text in any::<String>()) {
        let _ = mask_contact(&text);
    }
}
