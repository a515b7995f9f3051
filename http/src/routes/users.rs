//! The users tables of the admin panel (spec §2 riders, drivers, fleet
//! admins, all admins; §5 "Admin panel"; §6; §7 fetchUsers, addUser,
//! editUser, deleteUser, checkUserExists) and the signed-in user's own
//! profile (spec §2 "Profile", §7 updateProfile).
//!
//! Who may do what is `permissions::authorize` (fleet admins manage only
//! their drivers, an admin never deletes themself, demo mode guards adding
//! and deleting); what is valid is `engine::rules` (`accounts`, `contact`,
//! `profile`). Contact data goes out through `present::user`, which masks it
//! in demo mode.

use crate::auth::CurrentUser;
use crate::error::{ApiError, ApiResult};
use crate::extract::{Body, PathParam, QueryParams};
use crate::openapi::refusals::{session, session_with_body};
use crate::present;
use crate::routes::ApiRouter;
use crate::routes::user_edit::{duplicate_error, edit_user};
use crate::state::AppState;
use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use utoipa_axum::routes;
use wayfare_engine::permissions::{self, Action, Principal, Resource, UserRef, authorize};
use wayfare_engine::rules;
use wayfare_engine::rules::accounts::AccountFields;
use wayfare_engine::rules::profile::ProfileUpdate;
use wayfare_engine::{BookingStatus, ErrorKey, Role, User, UserId, UserLang, generate};
use wayfare_storage::{BookingFilter, PageRequest, StorageError, UserFilter};

pub fn router() -> ApiRouter {
    ApiRouter::new()
        .routes(routes!(list, add))
        .routes(routes!(exists))
        .routes(routes!(update_profile))
        .routes(routes!(read, edit, remove))
        .routes(routes!(approve))
}

/// A page of users as the caller may see them.
#[derive(Serialize, utoipa::ToSchema)]
pub struct UserPage {
    /// Newest first. No push tokens; in demo mode other people's e-mail and
    /// mobile are masked.
    pub items: Vec<User>,
    /// Pass as `after` for the next page; `null` on the last one.
    pub next: Option<String>,
}

/// The answer of the existence check.
#[derive(Serialize, utoipa::ToSchema)]
pub struct ExistsAnswer {
    /// Whether an account already has the e-mail or the mobile.
    pub exists: bool,
    /// The e-mail is taken.
    pub email: bool,
    /// The mobile is taken.
    pub mobile: bool,
}

/// A user as one of their managers or they themself see them.
#[derive(Serialize, utoipa::ToSchema)]
pub struct ProfileAnswer {
    pub user: User,
}

#[derive(Serialize, utoipa::ToSchema)]
pub struct Deleted {
    pub deleted: bool,
    pub id: UserId,
}

/// Refuses a role that may never do `action` before any lookup, so a 404
/// never tells such a caller which ids exist.
fn role_may(principal: &Principal, action: Action) -> ApiResult<()> {
    if action.allowed_roles().contains(&principal.role) { Ok(()) } else { Err(ErrorKey::NotAllowed.into()) }
}

/// The account `id` if the caller may do `action` on it; accounts outside
/// their reach (another fleet's driver, for a fleet admin) are 404.
async fn managed_account(state: &AppState, current: &CurrentUser, id: UserId, action: Action) -> ApiResult<User> {
    role_may(&current.principal, action)?;
    let account = state.storage.user(id).await?;
    let settings = &state.runtime.catalog().settings;
    authorize(Some(&current.principal), action, Resource::User(UserRef::from(&account)), settings)?;
    Ok(account)
}

fn parse_role(text: &str) -> ApiResult<Role> {
    Role::ALL
        .into_iter()
        .find(|role| role.as_str() == text.trim())
        .ok_or(ApiError::field(ErrorKey::InvalidInput, "role"))
}

// ---- list and existence check -------------------------------------------------

#[derive(Debug, Deserialize, Default, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ListQuery {
    /// `rider`, `driver`, `fleetadmin` or `admin`. Without it an admin gets
    /// everyone but admins (the admin table asks for `admin`), a fleet admin
    /// their drivers.
    /// (Blank is the same as leaving it out.)
    #[param(pattern = "^\\s*(rider|driver|fleetadmin|admin)?\\s*$")]
    pub role: Option<String>,
    /// Words to look for in names, e-mail and mobile.
    pub search: Option<String>,
    /// Only approved (`true`) or only waiting (`false`) accounts.
    pub approved: Option<bool>,
    /// Page size, 1 to 500, default 50.
    #[param(minimum = 1, maximum = 500)]
    pub limit: Option<u32>,
    /// The `next` cursor of the previous page.
    #[param(pattern = "^[0-9a-fA-F]{48}$")]
    pub after: Option<String>,
    /// Comma-separated user ids, up to 100: those of them the list's scope
    /// holds, in the order asked (the other filters and paging do not apply).
    pub ids: Option<String>,
}

/// Most ids one `ids` read names.
const MAX_IDS: usize = 100;

#[utoipa::path(
    get,
    operation_id = "list_users",
    path = "/api/v1/users",
    tag = "users",
    summary = "List users",
    description = "Admins and fleet admins (spec §6). An admin lists any role, and without `role` everyone but admins; a fleet admin lists only the drivers of their fleet (asking for another role is `not_allowed`). Newest first, paginated with `limit` and `after`; or, with `ids`, the users named that the caller may list (the console names the drivers it shows this way).",
    params(ListQuery),
    responses((status = 200, description = "A page of users", body = UserPage)),
    extensions(("x-refusals" = json!(session![NotAllowed, InvalidInput]))),
)]
pub(crate) async fn list(
    State(state): State<AppState>,
    current: CurrentUser,
    QueryParams(query): QueryParams<ListQuery>,
) -> ApiResult<Json<Value>> {
    let settings = state.runtime.catalog().settings.clone();
    authorize(Some(&current.principal), Action::UsersList, Resource::None, &settings)?;
    let role = query.role.as_deref().filter(|text| !text.trim().is_empty()).map(parse_role).transpose()?;
    let scope = permissions::user_list_scope(&current.principal, role)?;
    if let Some(ids) = query.ids.as_deref().filter(|text| !text.trim().is_empty()) {
        let ids = parse_ids(ids)?;
        let found = state.storage.users_by_id(&ids).await?;
        let by_id: std::collections::HashMap<UserId, &User> = found.iter().map(|user| (user.id, user)).collect();
        let items: Vec<Value> = ids
            .iter()
            .filter_map(|id| by_id.get(id).copied())
            .filter(|user| scope.matches(user))
            .map(|user| present::user(user, &current.principal, &settings))
            .collect();
        return Ok(Json(json!({ "items": items, "next": null })));
    }
    let page = super::page_request(query.limit, query.after)?;
    // Someone typing a whole e-mail means that account: it comes first on the
    // first page (and nowhere else), found by the e-mail index.
    let search = query.search.filter(|text| !text.trim().is_empty());
    let exact = match search.as_deref().map(|text| text.trim().to_lowercase()).filter(|text| text.contains('@')) {
        Some(email) => state
            .storage
            .user_by_email(&email)
            .await?
            .filter(|user| scope.matches(user) && query.approved.is_none_or(|approved| user.approved == approved)),
        None => None,
    };
    let first_page = page.after.is_none();
    let filter = UserFilter { roles: scope.roles, fleetadmin: scope.fleet, search, approved: query.approved };
    let found = state.storage.list_users(&filter, &page).await?;
    let exact_id = exact.as_ref().map(|user| user.id);
    let listed = found.items.iter().filter(|user| Some(user.id) != exact_id);
    let items: Vec<Value> = exact
        .iter()
        .filter(|_| first_page)
        .chain(listed)
        .map(|user| present::user(user, &current.principal, &settings))
        .collect();
    Ok(Json(json!({ "items": items, "next": found.next })))
}

/// `ids`: distinct, well-formed, at most [`MAX_IDS`].
fn parse_ids(text: &str) -> ApiResult<Vec<UserId>> {
    let mut ids = Vec::new();
    for part in text.split(',').map(str::trim).filter(|part| !part.is_empty()) {
        let id: UserId = part.parse().map_err(|_| ApiError::field(ErrorKey::InvalidInput, "ids"))?;
        if !ids.contains(&id) {
            ids.push(id);
        }
    }
    if ids.len() > MAX_IDS {
        return Err(ApiError::field(ErrorKey::InvalidInput, "ids"));
    }
    Ok(ids)
}

#[derive(Debug, Deserialize, Default, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ExistsQuery {
    #[param(min_length = 1)]
    pub email: Option<String>,
    #[param(min_length = 1)]
    pub mobile: Option<String>,
}

#[utoipa::path(
    get,
    operation_id = "user_exists",
    path = "/api/v1/users/exists",
    tag = "users",
    summary = "Check whether a user exists",
    description = "Spec §7 checkUserExists, the check the add forms run first: whether an account has this e-mail or mobile. Admins and fleet admins. At least one well-formed contact is needed, else `email_or_mobile_issue`.",
    params(ExistsQuery),
    responses((status = 200, description = "Whether each contact is taken", body = ExistsAnswer)),
    extensions(("x-refusals" = json!(session![NotAllowed, InvalidInput, EmailOrMobileIssue]))),
)]
pub(crate) async fn exists(
    State(state): State<AppState>,
    current: CurrentUser,
    QueryParams(query): QueryParams<ExistsQuery>,
) -> ApiResult<Json<ExistsAnswer>> {
    let settings = state.runtime.catalog().settings.clone();
    authorize(Some(&current.principal), Action::UsersList, Resource::None, &settings)?;
    let contacts = rules::contact::check_contacts(query.email.as_deref(), query.mobile.as_deref())?;
    let (email, mobile) = taken_contacts(&state, &contacts.email, &contacts.mobile, None).await?;
    Ok(Json(ExistsAnswer { exists: email || mobile, email, mobile }))
}

/// Whether another account than `except` has the e-mail, and the mobile
/// (blank ones are never taken).
async fn taken_contacts(
    state: &AppState,
    email: &str,
    mobile: &str,
    except: Option<UserId>,
) -> ApiResult<(bool, bool)> {
    let someone_else = |user: Option<User>| user.is_some_and(|user| Some(user.id) != except);
    let email_taken = !email.is_empty() && someone_else(state.storage.user_by_email(email).await?);
    let mobile_taken = !mobile.is_empty() && someone_else(state.storage.user_by_mobile(mobile).await?);
    Ok((email_taken, mobile_taken))
}

fn refuse_taken(taken: (bool, bool)) -> ApiResult<()> {
    match taken {
        (true, _) => Err(ApiError::field(ErrorKey::UserExists, "email")),
        (_, true) => Err(ApiError::field(ErrorKey::UserExists, "mobile")),
        _ => Ok(()),
    }
}

// ---- add -------------------------------------------------------------------------

/// The fleet of a driver after the caller's choice: unchanged when nothing
/// (or the same fleet) is sent; otherwise an admin's choice of a fleet
/// admin, checked by the engine.
async fn chosen_fleet(
    state: &AppState,
    principal: &Principal,
    role: Role,
    choice: Option<Option<UserId>>,
    current: Option<UserId>,
) -> ApiResult<Option<UserId>> {
    let Some(choice) = choice else { return Ok(current) };
    if choice == current {
        return Ok(current);
    }
    let owner = match choice {
        Some(id) => match state.storage.user(id).await {
            Ok(owner) => Some(owner),
            Err(StorageError::NotFound) => None,
            Err(error) => return Err(error.into()),
        },
        // Out of any fleet: only the role rules apply.
        None if principal.role == Role::Admin => return Ok(None),
        None => None,
    };
    rules::accounts::check_fleet_choice(principal, role, owner.as_ref())?;
    Ok(choice)
}

#[utoipa::path(
    post,
    operation_id = "add_user",
    path = "/api/v1/users",
    tag = "users",
    summary = "Add a user",
    description = "Spec §5 Admin panel: an admin adds a rider, driver, fleet admin or admin; a fleet admin adds drivers, who get the fleet admin's id as `fleetadmin` (spec §6). Needs `usertype`, `firstName`, `lastName` and a proper e-mail or mobile (`email_or_mobile_issue`); a contact another account has is `user_exists` (409). The account is made by an admin (`regType` admin: its contacts stay fixed) and approved unless `approved` is false. Refused in demo mode.",
    request_body = AccountFields,
    responses((status = 201, description = "The new user", body = User)),
    extensions(("x-refusals" = json!(session_with_body![NotAllowed, DemoMode, EmailOrMobileIssue, UserExists]))),
)]
pub(crate) async fn add(
    State(state): State<AppState>,
    current: CurrentUser,
    Body(fields): Body<AccountFields>,
) -> ApiResult<(StatusCode, Json<Value>)> {
    let principal = current.principal;
    role_may(&principal, Action::UserAdd)?;
    let role = fields.usertype.ok_or(ApiError::field(ErrorKey::InvalidInput, "usertype"))?;
    let catalog = state.runtime.catalog();
    authorize(Some(&principal), Action::UserAdd, Resource::NewUser { role }, &catalog.settings)?;
    let fleet =
        chosen_fleet(&state, &principal, role, fields.fleetadmin, permissions::fleet_for_new_user(&principal, role))
            .await?;
    let now = state.now();
    let mut user = rules::accounts::new_account(UserId(uuid::Uuid::now_v7()), now, &fields, fleet, &catalog.car_types)?;
    refuse_taken(taken_contacts(&state, &user.email, &user.mobile, None).await?)?;
    let mut attempts = 0;
    loop {
        user.referralId = generate::referral_code(&mut rand::rng());
        match state.storage.insert_user(&user).await {
            Ok(()) => break,
            // A referral code collision: draw another.
            Err(StorageError::Duplicate("referral")) if attempts < 5 => attempts += 1,
            Err(error) => return Err(duplicate_error(error)),
        }
    }
    tracing::info!(user_id = %user.id, role = role.as_str(), by = %principal.id, "user added");
    let stored = state.storage.user(user.id).await?;
    Ok((StatusCode::CREATED, Json(present::user(&stored, &principal, &catalog.settings))))
}

// ---- one account -------------------------------------------------------------------

#[utoipa::path(
    get,
    operation_id = "read_user",
    path = "/api/v1/users/{id}",
    tag = "users",
    summary = "Read a user",
    description = "Admins read anyone; a fleet admin their drivers. Anyone else's account is 404.",
    params(("id" = UserId, Path, description = "The user's id")),
    responses((status = 200, description = "The user", body = User)),
    extensions(("x-refusals" = json!(session![NotAllowed, NotFound]))),
)]
pub(crate) async fn read(
    State(state): State<AppState>,
    current: CurrentUser,
    PathParam(id): PathParam<UserId>,
) -> ApiResult<Json<Value>> {
    let account = managed_account(&state, &current, id, Action::UserEdit).await?;
    Ok(Json(present::user(&account, &current.principal, &state.runtime.catalog().settings)))
}

/// Takes an online driver offline when what the dispatcher knows of them
/// changed (car type, fleet) or they may no longer work (approval
/// withdrawn); they go online again with the new details.
async fn refresh_online_driver(state: &AppState, before: &User, after: &User) -> ApiResult<()> {
    let changed = before.carType != after.carType || before.fleetadmin != after.fleetadmin || !after.approved;
    if after.usertype == Role::Driver && changed && state.runtime.is_online(after.id) {
        state.runtime.driver_offline(after.id).await?;
    }
    Ok(())
}

#[utoipa::path(
    patch,
    operation_id = "edit_user",
    path = "/api/v1/users/{id}",
    tag = "users",
    summary = "Edit a user",
    description = "Spec §7 editUser: names, approval, a driver's car type, vehicle and bank details, and (admins only) a driver's `fleetadmin`. E-mail and mobile are set only when adding: a different one is `contact_not_editable`; the user type does not change. Admins edit anyone, fleet admins their drivers. Allowed in demo mode (spec §5). An online driver whose car type, fleet or approval changes is taken offline.",
    params(("id" = UserId, Path, description = "The user's id")),
    request_body = AccountFields,
    responses((status = 200, description = "The user after the edit", body = User)),
    extensions(("x-refusals" = json!(session_with_body![NotAllowed, NotFound, ContactNotEditable]))),
)]
pub(crate) async fn edit(
    State(state): State<AppState>,
    current: CurrentUser,
    PathParam(id): PathParam<UserId>,
    Body(fields): Body<AccountFields>,
) -> ApiResult<Json<Value>> {
    let account = managed_account(&state, &current, id, Action::UserEdit).await?;
    let catalog = state.runtime.catalog();
    let principal = current.principal;
    let fleet = chosen_fleet(&state, &principal, account.usertype, fields.fleetadmin, account.fleetadmin).await?;
    let mut before = None;
    let edited = edit_user(&state, id, |user| {
        // The user as stored now must still be the caller's to manage, and
        // in the fleet the choice above was checked against.
        authorize(Some(&principal), Action::UserEdit, Resource::User(UserRef::from(&*user)), &catalog.settings)?;
        if fields.fleetadmin.is_some() && user.fleetadmin != account.fleetadmin {
            return Err(ErrorKey::UpdateFailed.into());
        }
        before = Some(user.clone());
        let mut edited = rules::accounts::edit_account(&principal, user, &fields, &catalog.car_types)?;
        if fields.fleetadmin.is_some() {
            edited.fleetadmin = fleet;
        }
        *user = edited;
        Ok(())
    })
    .await?;
    refresh_online_driver(&state, before.as_ref().unwrap_or(&account), &edited).await?;
    Ok(Json(present::user(&edited, &principal, &catalog.settings)))
}

#[utoipa::path(
    post,
    operation_id = "approve_user",
    path = "/api/v1/users/{id}/approve",
    tag = "users",
    summary = "Approve a user",
    description = "Lets an account sign in (drivers wait for approval when `driver_approval` is on); a driver's documents waiting for review are approved too, and the driver is told in the app and by e-mail. Admins approve anyone, fleet admins their drivers; withdrawing approval is `PATCH /api/v1/users/{id}` with `approved: false`. Allowed in demo mode.",
    params(("id" = UserId, Path, description = "The user's id")),
    responses((status = 200, description = "The approved user", body = User)),
    extensions(("x-refusals" = json!(session![NotAllowed, NotFound]))),
)]
pub(crate) async fn approve(
    State(state): State<AppState>,
    current: CurrentUser,
    PathParam(id): PathParam<UserId>,
) -> ApiResult<Json<Value>> {
    let account = managed_account(&state, &current, id, Action::UserApprove).await?;
    let mut stored = account.clone();
    let newly_approved = rules::accounts::set_approval(&current.principal, &account, true)? != account;
    if newly_approved {
        let settings = &state.runtime.catalog().settings;
        stored = edit_user(&state, id, |user| {
            authorize(Some(&current.principal), Action::UserApprove, Resource::User(UserRef::from(&*user)), settings)?;
            *user = rules::accounts::set_approval(&current.principal, user, true)?;
            Ok(())
        })
        .await?;
    }
    // A driver's waiting documents are approved with them (issue #33).
    crate::routes::applications::on_approved(&state, current.principal.id, &stored, newly_approved).await?;
    Ok(Json(present::user(&stored, &current.principal, &state.runtime.catalog().settings)))
}

/// Whether the account is the rider or the driver of a booking in progress.
async fn has_active_bookings(state: &AppState, id: UserId) -> ApiResult<bool> {
    let active: Vec<BookingStatus> = BookingStatus::ALL.into_iter().filter(|status| status.is_active()).collect();
    for filter in [
        BookingFilter { customer: Some(id), statuses: active.clone(), ..BookingFilter::default() },
        BookingFilter { driver: Some(id), statuses: active.clone(), ..BookingFilter::default() },
    ] {
        if !state.storage.list_bookings(&filter, &PageRequest::first(1)).await?.items.is_empty() {
            return Ok(true);
        }
    }
    Ok(false)
}

/// A deleted fleet admin's drivers leave the fleet rather than point at nobody.
async fn release_fleet(state: &AppState, fleet: UserId) -> ApiResult<()> {
    let filter = UserFilter { roles: vec![Role::Driver], fleetadmin: Some(fleet), ..UserFilter::default() };
    loop {
        // Each pass takes drivers out of the filter, so the first page is always the next one.
        let page = state.storage.list_users(&filter, &PageRequest::first(PageRequest::MAX_LIMIT)).await?;
        if page.items.is_empty() {
            return Ok(());
        }
        for before in page.items {
            let after = edit_user(state, before.id, |driver| {
                driver.fleetadmin = None;
                Ok(())
            })
            .await?;
            refresh_online_driver(state, &before, &after).await?;
        }
    }
}

#[utoipa::path(
    delete,
    operation_id = "delete_user",
    path = "/api/v1/users/{id}",
    tag = "users",
    summary = "Delete a user",
    description = "Spec §7 deleteUser. Admins delete anyone but themself (`not_allowed`); fleet admins their drivers. An account with a booking in progress as rider or driver is `user_has_active_bookings` (409); an online driver is taken offline; a deleted fleet admin's drivers leave the fleet. The account's sessions and wallet history go with it. Refused in demo mode.",
    params(("id" = UserId, Path, description = "The user's id")),
    responses((status = 200, description = "Deleted", body = Deleted)),
    extensions(("x-refusals" = json!(session![NotAllowed, NotFound, DemoMode, UserHasActiveBookings]))),
)]
pub(crate) async fn remove(
    State(state): State<AppState>,
    current: CurrentUser,
    PathParam(id): PathParam<UserId>,
) -> ApiResult<Json<Deleted>> {
    let account = managed_account(&state, &current, id, Action::UserDelete).await?;
    if has_active_bookings(&state, id).await? {
        return Err(ErrorKey::UserHasActiveBookings.into());
    }
    if account.usertype == Role::Driver && state.runtime.is_online(id) {
        state.runtime.driver_offline(id).await?;
    }
    if account.usertype == Role::Fleetadmin {
        release_fleet(&state, id).await?;
    }
    state.storage.delete_user(id).await?;
    tracing::info!(user_id = %id, by = %current.principal.id, "user deleted");
    Ok(Json(Deleted { deleted: true, id }))
}

// ---- own profile --------------------------------------------------------------------

/// What the profile form sends (spec §7 updateProfile).
#[derive(Debug, Deserialize, Default, utoipa::ToSchema)]
#[serde(default)]
#[allow(non_snake_case)]
pub struct ProfileBody {
    /// Not blank when given (`profile_incomplete`), at most 100 characters.
    #[schema(min_length = 1, max_length = 100)]
    pub firstName: Option<String>,
    /// Not blank when given (`profile_incomplete`), at most 100 characters.
    #[schema(min_length = 1, max_length = 100)]
    pub lastName: Option<String>,
    /// Only when the e-mail is not locked (spec §2: locked when `regType` is email, admin or registration).
    pub email: Option<String>,
    /// Only when the phone is not locked (spec §2: locked when `regType` is mobile, admin or registration).
    pub mobile: Option<String>,
    /// The language of the app and of the server's messages.
    pub lang: Option<UserLang>,
    /// Bank details a withdraw request carries (spec §3), at most 64
    /// characters each; empty clears one.
    #[schema(max_length = 64)]
    pub bankName: Option<String>,
    #[schema(max_length = 64)]
    pub bankCode: Option<String>,
    #[schema(max_length = 64)]
    pub bankAccount: Option<String>,
}

#[utoipa::path(
    patch,
    operation_id = "update_profile",
    path = "/api/v1/users/me",
    tag = "users",
    summary = "Update my profile",
    description = "Spec §2 Profile, §7 updateProfile: names (not blank: `profile_incomplete`), e-mail and mobile under the lock rules (a locked one that changes is `field_locked`; an unlocked e-mail must be proper, `proper_email`; a phone needs 7 to 15 digits, `mobile_no_blank_error`; at least one contact stays, `email_or_mobile_issue`; one another account has is `user_exists`), the language (`lang`, one the platform lists), and the bank details a withdraw request carries (`bankName`, `bankCode`, `bankAccount`: at most 64 characters, no control characters, else `invalid_input`). Every signed-in user; allowed in demo mode. The app asks `phone_no_update` before sending a new phone.",
    request_body = ProfileBody,
    responses((status = 200, description = "The updated user", body = ProfileAnswer)),
    extensions(("x-refusals" = json!(session_with_body![
        ProfileIncomplete, FieldLocked, ProperEmail, MobileNoBlankError, EmailOrMobileIssue, UserExists
    ]))),
)]
pub(crate) async fn update_profile(
    State(state): State<AppState>,
    current: CurrentUser,
    Body(body): Body<ProfileBody>,
) -> ApiResult<Json<Value>> {
    let settings = state.runtime.catalog().settings.clone();
    authorize(Some(&current.principal), Action::ProfileUpdate, Resource::None, &settings)?;
    // The checks that need IO (a contact taken by someone else) run on this
    // copy; the edit itself runs on the user as stored when it is written.
    let user = state.storage.user(current.principal.id).await?;
    let update = ProfileUpdate {
        firstName: body.firstName,
        lastName: body.lastName,
        email: body.email,
        mobile: body.mobile,
        bankName: body.bankName,
        bankCode: body.bankCode,
        bankAccount: body.bankAccount,
    };
    let checked = rules::profile::validate_own_profile(&user, &update)?;
    let lang = match body.lang {
        Some(lang) => {
            let languages = state.storage.languages().await?;
            let known: Vec<&str> = languages.iter().map(|language| language.langLocale.as_str()).collect();
            Some(rules::profile::validate_user_lang(&lang, &known)?)
        }
        None => None,
    };
    let new_email = checked.email.clone().filter(|email| *email != user.email).unwrap_or_default();
    let new_mobile = checked.mobile.clone().filter(|mobile| *mobile != user.mobile).unwrap_or_default();
    refuse_taken(taken_contacts(&state, &new_email, &new_mobile, Some(user.id)).await?)?;
    // Checked again on the user as stored now (the lock rules read it), and
    // applied to that, so nothing written meanwhile is undone.
    let stored = edit_user(&state, user.id, |user| {
        let checked = rules::profile::validate_own_profile(user, &update)?;
        if let Some(first_name) = checked.firstName {
            user.firstName = first_name;
        }
        if let Some(last_name) = checked.lastName {
            user.lastName = last_name;
        }
        if let Some(email) = checked.email {
            user.email = email;
        }
        if let Some(mobile) = checked.mobile {
            user.mobile = mobile;
        }
        for (value, field) in [
            (checked.bankName, &mut user.bankName),
            (checked.bankCode, &mut user.bankCode),
            (checked.bankAccount, &mut user.bankAccount),
        ] {
            if let Some(value) = value {
                *field = value;
            }
        }
        if lang.is_some() {
            user.lang = lang.clone();
        }
        Ok(())
    })
    .await?;
    Ok(Json(json!({ "user": present::user(&stored, &current.principal, &settings) })))
}
