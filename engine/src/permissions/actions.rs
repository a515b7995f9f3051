//! Every server operation that needs a decision, with the roles that may
//! ever do it, the kind of resource it is checked against and whether demo
//! mode refuses it.

use super::principal::{ADMIN_AND_FLEET, ADMIN_ONLY, EVERY_ROLE};
use crate::model::Role;

/// Every server operation that needs a decision.
///
/// Promos and notifications are split where demo mode treats them apart
/// (spec §5: promo add and notification delete are unguarded). `UserEdit` is
/// a manager editing an account; a user editing their own profile is
/// `ProfileUpdate`, so no one reaches the admin edit path by naming themself.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Action {
    BookingRead,
    BookingList,
    BookingCreate,
    BookingEstimate,
    BookingAccept,
    BookingDecline,
    BookingArrive,
    BookingStart,
    BookingReach,
    BookingPay,
    BookingRate,
    BookingCancel,
    BookingAssign,
    BookingChat,
    BookingTracking,
    DriverStatus,
    DriverLocation,
    DriverTasks,
    WalletRead,
    WalletCredit,
    /// An admin's debit or adjustment of a wallet (issue #37).
    WalletAdjust,
    WithdrawCreate,
    WithdrawList,
    WithdrawComplete,
    UsersList,
    UserAdd,
    UserEdit,
    UserDelete,
    UserApprove,
    ProfileUpdate,
    CarTypesRead,
    CarTypesWrite,
    CancelReasonsRead,
    CancelReasonsWrite,
    PromosRead,
    PromoAdd,
    PromoEdit,
    NotificationsRead,
    NotificationSend,
    NotificationDelete,
    /// A message from the dispatch console to one driver.
    DriverMessage,
    SettingsRead,
    SettingsWrite,
    LanguagesRead,
    LanguagesWrite,
    ReportsRead,
    ReportsExport,
    /// The driver earning table (per driver per month): scoped by
    /// [`report_scope`], so a driver reads their own months (spec §6).
    DriverEarningsRead,
    Upload,
    // Files (spec §7 updateLicenseImage; parcel photos of spec §3).
    /// A driver's licence image: the driver, an admin, or the driver's fleet admin.
    LicenseUpload,
    LicenseRead,
    /// A parcel photo of a delivery booking: its assigned driver.
    ParcelImageUpload,
    /// The dashboard's earning cards (spec §2 "Dashboard"): a fleet admin's
    /// cover their fleet.
    DashboardRead,
    /// The bookings list as a file (spec §2 "Bookings": export only when
    /// critical edits are allowed).
    BookingExport,
    /// The drivers an admin may assign a booking to (spec §4 "Assign driver").
    BookingCandidates,
    /// An SOS during a trip: the booking's rider or its assigned driver.
    SosRaise,
    /// The SOS alerts: admins all, fleet admins their fleet's ([`sos_scope`]).
    SosRead,
    /// Taking and resolving an SOS alert; a safety action, so not refused
    /// in demo mode.
    SosManage,
    /// Closing an unpaid trip from the panel: marked paid, or settled in cash.
    BookingSettle,
    /// Completing a PAID booking from the panel.
    BookingComplete,
    /// Money back to the rider's wallet from a booking.
    BookingRefund,
    /// A booking's ledger entries, for its page in the panel.
    BookingLedger,
    /// "Try again": a new booking of a finished one's trip.
    BookingRebook,
    /// The report of money owed.
    OwedRead,
    /// The panel reads a booking's chat (its page): read only.
    BookingChatAudit,
    /// The payment gateways' settings (secrets never shown) and their log.
    PaymentSettingsRead,
    PaymentSettingsWrite,
}

/// What kind of resource an action is checked against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Target {
    Nothing,
    Booking,
    User,
    NewUser,
}

impl Action {
    pub const ALL: [Action; 67] = [
        Action::BookingRead,
        Action::BookingList,
        Action::BookingCreate,
        Action::BookingEstimate,
        Action::BookingAccept,
        Action::BookingDecline,
        Action::BookingArrive,
        Action::BookingStart,
        Action::BookingReach,
        Action::BookingPay,
        Action::BookingRate,
        Action::BookingCancel,
        Action::BookingAssign,
        Action::BookingChat,
        Action::BookingTracking,
        Action::DriverStatus,
        Action::DriverLocation,
        Action::DriverTasks,
        Action::WalletRead,
        Action::WalletCredit,
        Action::WalletAdjust,
        Action::WithdrawCreate,
        Action::WithdrawList,
        Action::WithdrawComplete,
        Action::UsersList,
        Action::UserAdd,
        Action::UserEdit,
        Action::UserDelete,
        Action::UserApprove,
        Action::ProfileUpdate,
        Action::CarTypesRead,
        Action::CarTypesWrite,
        Action::CancelReasonsRead,
        Action::CancelReasonsWrite,
        Action::PromosRead,
        Action::PromoAdd,
        Action::PromoEdit,
        Action::NotificationsRead,
        Action::NotificationSend,
        Action::NotificationDelete,
        Action::DriverMessage,
        Action::SettingsRead,
        Action::SettingsWrite,
        Action::LanguagesRead,
        Action::LanguagesWrite,
        Action::ReportsRead,
        Action::ReportsExport,
        Action::DriverEarningsRead,
        Action::Upload,
        Action::LicenseUpload,
        Action::LicenseRead,
        Action::ParcelImageUpload,
        Action::DashboardRead,
        Action::BookingExport,
        Action::BookingCandidates,
        Action::SosRaise,
        Action::SosRead,
        Action::SosManage,
        Action::BookingSettle,
        Action::BookingComplete,
        Action::BookingRefund,
        Action::BookingLedger,
        Action::BookingRebook,
        Action::OwedRead,
        Action::BookingChatAudit,
        Action::PaymentSettingsRead,
        Action::PaymentSettingsWrite,
    ];

    /// Open to visitors who are not signed in: what the landing page loads
    /// (`GET /settings` public subset, `GET /cartypes`, the languages).
    pub fn is_public(self) -> bool {
        matches!(self, Action::CarTypesRead | Action::SettingsRead | Action::LanguagesRead)
    }

    /// The roles that may ever do this (before looking at the resource).
    ///
    /// Admins manage everything but do not act as a trip's rider or driver:
    /// accepting, running, paying, rating and chatting stay with the parties
    /// (DESIGN.md contract table). Riders do not list users, although the
    /// original client loaded them (least privilege).
    pub fn allowed_roles(self) -> &'static [Role] {
        use Role::{Admin, Driver, Fleetadmin, Rider};
        match self {
            Action::BookingRead | Action::BookingList => EVERY_ROLE,
            Action::BookingCreate | Action::BookingEstimate => &[Rider, Admin],
            Action::BookingAccept
            | Action::BookingDecline
            | Action::BookingArrive
            | Action::BookingStart
            | Action::BookingReach => &[Driver],
            Action::BookingPay | Action::BookingChat => &[Rider, Driver],
            Action::BookingRate => &[Rider],
            Action::BookingCancel => &[Rider, Driver, Admin],
            Action::BookingAssign | Action::BookingCandidates => ADMIN_ONLY,
            Action::BookingTracking => EVERY_ROLE,
            Action::DriverStatus | Action::DriverLocation | Action::DriverTasks => &[Driver],
            Action::WalletRead => EVERY_ROLE,
            Action::WalletCredit | Action::WalletAdjust => ADMIN_ONLY,
            // Withdraws come out of a rider's or driver's earnings wallet.
            Action::WithdrawCreate => &[Rider, Driver],
            Action::WithdrawList => &[Rider, Driver, Admin],
            Action::WithdrawComplete => ADMIN_ONLY,
            Action::UsersList | Action::UserAdd | Action::UserEdit | Action::UserDelete | Action::UserApprove => {
                &[Fleetadmin, Admin]
            }
            Action::ProfileUpdate | Action::Upload => EVERY_ROLE,
            Action::CarTypesRead | Action::SettingsRead | Action::LanguagesRead => EVERY_ROLE,
            Action::CancelReasonsRead => EVERY_ROLE,
            Action::PromosRead => &[Rider, Admin],
            Action::CarTypesWrite
            | Action::CancelReasonsWrite
            | Action::PromoAdd
            | Action::PromoEdit
            | Action::NotificationsRead
            | Action::NotificationSend
            | Action::NotificationDelete
            | Action::SettingsWrite
            | Action::LanguagesWrite => ADMIN_ONLY,
            Action::ReportsRead | Action::ReportsExport => ADMIN_AND_FLEET,
            Action::DashboardRead | Action::BookingExport => ADMIN_AND_FLEET,
            Action::DriverMessage => ADMIN_AND_FLEET,
            Action::LicenseUpload | Action::LicenseRead => &[Driver, Fleetadmin, Admin],
            Action::ParcelImageUpload => &[Driver],
            // Drivers get earnings per month per driver (spec §6), their own only.
            Action::DriverEarningsRead => &[Driver, Fleetadmin, Admin],
            Action::SosRaise => &[Rider, Driver],
            Action::SosRead | Action::SosManage => ADMIN_AND_FLEET,
            Action::BookingSettle
            | Action::BookingComplete
            | Action::BookingLedger
            | Action::BookingChatAudit
            | Action::OwedRead => ADMIN_AND_FLEET,
            Action::BookingRefund | Action::PaymentSettingsRead | Action::PaymentSettingsWrite => ADMIN_ONLY,
            Action::BookingRebook => &[Rider, Admin],
        }
    }

    pub(super) fn target(self) -> Target {
        match self {
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
            | Action::BookingRebook => Target::Booking,
            Action::WalletRead
            | Action::UserEdit
            | Action::UserDelete
            | Action::UserApprove
            | Action::LicenseUpload
            | Action::LicenseRead
            | Action::DriverMessage => Target::User,
            Action::UserAdd => Target::NewUser,
            _ => Target::Nothing,
        }
    }

    /// Refused with `demo_mode` when critical edits are off.
    ///
    /// Demo mode is an admin-panel switch: it guards the panel's table
    /// mutations, settings, wallet tools and exports (spec §5, §6), but not
    /// the booking flow people try in a demo (booking, running trips, paying,
    /// rating, chat, location, withdraw requests) nor the spec's unguarded
    /// writes (promo add, user updates and approval, own profile, notification
    /// delete). Cancelling by the panel's button is guarded for riders and
    /// admins (spec §4); a driver leaving an offer or trip is not.
    pub fn refused_in_demo_mode(self, role: Role) -> bool {
        match self {
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
}
