//! The panel's dashboard (spec §2 "Dashboard"): the gross earning cards for
//! today, this month and all time. The sums are storage's dashboard roll-up,
//! kept by the rule of `engine::earnings::counts_for_earnings`; days
//! and months are the platform's (`[reports] utc_offset_minutes`).

use crate::auth::CurrentUser;
use crate::error::ApiResult;
use crate::openapi::refusals::session;
use crate::routes::ApiRouter;
use crate::state::AppState;
use axum::Json;
use axum::extract::State;
use utoipa_axum::routes;
use wayfare_engine::DashboardEarnings;
use wayfare_engine::permissions::{Action, BookingScope, Resource, authorize, booking_list_scope};
use wayfare_storage::DashboardScope;

pub fn router() -> ApiRouter {
    ApiRouter::new().routes(routes!(earnings))
}

#[utoipa::path(
    get,
    path = "/api/v1/dashboard/earnings",
    tag = "reports",
    summary = "The dashboard's gross earnings",
    description = "Σ `trip_cost` of the rides (PAID or COMPLETE, the rule of the earnings reports, so both count the same rides), by trip date: today and this month in the platform's reporting zone (`[reports] utc_offset_minutes`), and all time, each rounded to `settings.decimal`, with the number of rides behind each sum. Admins see the whole platform, fleet admins their fleet's bookings.",
    responses((status = 200, description = "The three sums and their rides", body = DashboardEarnings)),
    extensions(("x-refusals" = json!(session![NotAllowed]))),
)]
async fn earnings(State(state): State<AppState>, current: CurrentUser) -> ApiResult<Json<DashboardEarnings>> {
    let settings = state.runtime.catalog().settings.clone();
    authorize(Some(&current.principal), Action::DashboardRead, Resource::None, &settings)?;
    // A fleet admin's cards cover the bookings of their fleet, as their list does.
    let fleetadmin = match booking_list_scope(&current.principal) {
        BookingScope::Fleet(fleet) => Some(fleet),
        _ => None,
    };
    let scope = DashboardScope {
        fleetadmin,
        now: state.now(),
        utc_offset_minutes: state.config.reports.utc_offset_minutes,
        decimals: settings.decimal,
    };
    Ok(Json(state.storage.dashboard_earnings(&scope).await?))
}
