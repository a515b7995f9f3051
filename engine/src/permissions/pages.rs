//! Which pages of spec §2 a visitor may open, and where each role lands
//! after signing in.

use super::principal::{ADMIN_AND_FLEET, ADMIN_ONLY, EVERY_ROLE, Principal};
use crate::model::Role;

/// The UI routes of spec §2.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Page {
    Home,
    ContactUs,
    AboutUs,
    PrivacyPolicy,
    Login,
    Bookings,
    Profile,
    Dashboard,
    Drivers,
    DriverEarning,
    CarTypes,
    CancelReasons,
    AddBookings,
    Promos,
    Riders,
    AllAdmin,
    FleetAdmins,
    Notifications,
    EarningReports,
    AddToWallet,
    Withdraws,
    Settings,
    AppInfo,
    LanguageSetting,
}

impl Page {
    pub const ALL: [Page; 24] = [
        Page::Home,
        Page::ContactUs,
        Page::AboutUs,
        Page::PrivacyPolicy,
        Page::Login,
        Page::Bookings,
        Page::Profile,
        Page::Dashboard,
        Page::Drivers,
        Page::DriverEarning,
        Page::CarTypes,
        Page::CancelReasons,
        Page::AddBookings,
        Page::Promos,
        Page::Riders,
        Page::AllAdmin,
        Page::FleetAdmins,
        Page::Notifications,
        Page::EarningReports,
        Page::AddToWallet,
        Page::Withdraws,
        Page::Settings,
        Page::AppInfo,
        Page::LanguageSetting,
    ];

    pub fn path(self) -> &'static str {
        match self {
            Page::Home => "/",
            Page::ContactUs => "/contact-us",
            Page::AboutUs => "/about-us",
            Page::PrivacyPolicy => "/privacy-policy",
            Page::Login => "/login",
            Page::Bookings => "/bookings",
            Page::Profile => "/profile",
            Page::Dashboard => "/dashboard",
            Page::Drivers => "/drivers",
            Page::DriverEarning => "/driverearning",
            Page::CarTypes => "/cartypes",
            Page::CancelReasons => "/cancelreasons",
            Page::AddBookings => "/addbookings",
            Page::Promos => "/promos",
            Page::Riders => "/riders",
            Page::AllAdmin => "/alladmin",
            Page::FleetAdmins => "/fleetadmins",
            Page::Notifications => "/notifications",
            Page::EarningReports => "/earningreports",
            Page::AddToWallet => "/addtowallet",
            Page::Withdraws => "/withdraws",
            Page::Settings => "/settings",
            Page::AppInfo => "/appinfo",
            Page::LanguageSetting => "/languagesetting",
        }
    }

    pub fn from_path(path: &str) -> Option<Page> {
        Page::ALL.into_iter().find(|page| page.path() == path)
    }

    /// The allow-list of a protected route; `None` for a public one.
    pub fn allowed_roles(self) -> Option<&'static [Role]> {
        match self {
            Page::Home | Page::ContactUs | Page::AboutUs | Page::PrivacyPolicy | Page::Login => None,
            Page::Bookings | Page::Profile => Some(EVERY_ROLE),
            Page::Dashboard | Page::Drivers | Page::DriverEarning => Some(ADMIN_AND_FLEET),
            Page::CarTypes
            | Page::CancelReasons
            | Page::AddBookings
            | Page::Promos
            | Page::Riders
            | Page::AllAdmin
            | Page::FleetAdmins
            | Page::Notifications
            | Page::EarningReports
            | Page::AddToWallet
            | Page::Withdraws
            | Page::Settings
            | Page::AppInfo
            | Page::LanguageSetting => Some(ADMIN_ONLY),
        }
    }
}

/// Whether a visitor may open a page; anyone refused is sent to /login (spec §2).
pub fn page_allowed(principal: Option<&Principal>, page: Page) -> bool {
    match page.allowed_roles() {
        None => true,
        Some(roles) => principal.is_some_and(|principal| roles.contains(&principal.role)),
    }
}

/// Where a user lands after signing in (spec §4 "Login").
pub fn home_after_login(role: Role) -> Page {
    match role {
        Role::Admin | Role::Fleetadmin => Page::Dashboard,
        Role::Driver => Page::Bookings,
        Role::Rider => Page::Home,
    }
}

/// The landing page shows its booking form to visitors, riders and admins;
/// drivers (and fleet admins, whom the spec does not mention) see the slogan.
pub fn landing_shows_booking_form(principal: Option<&Principal>) -> bool {
    principal.is_none_or(|principal| matches!(principal.role, Role::Rider | Role::Admin))
}
