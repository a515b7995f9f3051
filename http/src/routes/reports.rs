//! Earnings reports (spec §2 "/driverearning", "/earningreports"; §3
//! "Earnings rows"; §7 fetchDriverEarnings, fetchEarningsReport; §9 which
//! bookings count): the driver earning table and the earnings report, as
//! JSON or exported as CSV or XLSX.
//!
//! Who sees what is the engine's `report_scope`: admins every driver, fleet
//! admins their fleet's bookings, drivers their own months (the driver earning
//! table only). Exports are the panel's (admins and fleet admins) and are
//! refused in demo mode. The sums are storage's, by the rules of
//! `engine::earnings`.

use crate::auth::CurrentUser;
use crate::error::{ApiError, ApiResult};
use crate::export;
use crate::extract::QueryParams;
use crate::openapi::refusals::session;
use crate::routes::ApiRouter;
use crate::state::AppState;
use axum::Json;
use axum::extract::State;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::json;
use utoipa_axum::routes;
use wayfare_engine::earnings::{PeriodQuery, report_period};
use wayfare_engine::permissions::{Action, Resource, UserRef, authorize, report_scope};
use wayfare_engine::{ErrorKey, Millis, UserId};
use wayfare_storage::EarningsScope;

pub fn router() -> ApiRouter {
    ApiRouter::new().routes(routes!(earnings_report)).routes(routes!(driver_earnings))
}

/// How a report is answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    #[default]
    Json,
    Csv,
    Xlsx,
}

pub(crate) const CSV_TYPE: &str = "text/csv; charset=utf-8";
pub(crate) const XLSX_TYPE: &str = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet";

/// The filters both reports take.
#[derive(Debug, Deserialize, Default, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ReportQuery {
    /// A local calendar year.
    #[param(minimum = 1, maximum = 9999)]
    pub year: Option<i32>,
    /// 1 to 12, with `year`.
    #[param(minimum = 1, maximum = 12)]
    pub month: Option<u32>,
    /// Trip dates at or after this instant (ms).
    #[param(value_type = Option<i64>)]
    pub from: Option<Millis>,
    /// Trip dates before this instant (ms).
    #[param(value_type = Option<i64>)]
    pub until: Option<Millis>,
    /// Minutes east of UTC that months are cut in (-720 to 840); default: the
    /// configured `[reports] utc_offset_minutes`.
    #[param(minimum = -720, maximum = 840)]
    pub utc_offset_minutes: Option<i32>,
    /// Only this driver (a fleet admin's own drivers; a driver only themself).
    #[param(value_type = Option<String>, format = Uuid)]
    pub driver: Option<UserId>,
    /// `json` (default), `csv` or `xlsx`.
    #[serde(default)]
    #[param(value_type = Option<Format>, inline)]
    pub format: Format,
    /// JSON only: answer one page of this many rows (1 to 500), newest month
    /// first then by driver id, with a `next` cursor; without it, every row.
    #[param(minimum = 1, maximum = 500)]
    pub limit: Option<u32>,
    /// JSON only, with `limit`: the previous page's `next` (refused otherwise).
    #[param(pattern = "^[0-9a-fA-F]{48}$")]
    pub after: Option<String>,
}

/// Which report a request is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Report {
    DriverEarnings,
    EarningsReport,
}

impl Report {
    fn action(self) -> Action {
        match self {
            Report::DriverEarnings => Action::DriverEarningsRead,
            Report::EarningsReport => Action::ReportsRead,
        }
    }

    fn file_stem(self) -> &'static str {
        match self {
            Report::DriverEarnings => "driver-earnings",
            Report::EarningsReport => "earnings-report",
        }
    }
}

#[utoipa::path(
    get,
    path = "/api/v1/reports/earnings",
    tag = "reports",
    summary = "The earnings report",
    description = "One row per driver per local month (spec §3 \"Earnings rows\"), newest month first: rides (PAID or COMPLETE) add to every sum; a CANCELLED booking counts only with a cancellation fee above 0, and only in `cancellationFee`. `myEarning` = `tripCost` − `driverShare` − `discountAmount`; `rideCost` = `tripCost` − `convenienceFee`. Admins see every driver, fleet admins their fleet's bookings. Filter by a local `year` (and `month`) or by a `from`/`until` range of trip dates, not both. `format=csv` or `format=xlsx` downloads the same rows as a file (admins and fleet admins; refused with `demo_mode` in demo mode).",
    params(ReportQuery),
    responses((status = 200, description = "The rows, or the file with `Content-Disposition: attachment`", content(
        (crate::openapi::schemas::EarningsReport = "application/json"),
        (String = "text/csv"),
        (Vec<u8> = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"),
    ))),
    extensions(("x-refusals" = json!(session![InvalidInput, NotAllowed, DemoMode, NotFound]))),
)]
async fn earnings_report(
    State(state): State<AppState>,
    current: CurrentUser,
    QueryParams(query): QueryParams<ReportQuery>,
) -> ApiResult<Response> {
    answer(&state, &current, query, Report::EarningsReport).await
}

#[utoipa::path(
    get,
    path = "/api/v1/reports/driver-earnings",
    tag = "reports",
    summary = "Driver earnings per month",
    description = "One row per driver per local month from rides only (PAID or COMPLETE bookings, spec §9), newest month first: `driverShare` and `total_rides`. Admins see every driver, fleet admins their fleet's, a driver their own months. Filters as for the earnings report. `format=csv` or `format=xlsx` downloads the same rows as a file (admins and fleet admins; refused with `demo_mode` in demo mode).",
    params(ReportQuery),
    responses((status = 200, description = "The rows, or the file with `Content-Disposition: attachment`", content(
        (crate::openapi::schemas::DriverEarnings = "application/json"),
        (String = "text/csv"),
        (Vec<u8> = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"),
    ))),
    extensions(("x-refusals" = json!(session![InvalidInput, NotAllowed, DemoMode, NotFound]))),
)]
async fn driver_earnings(
    State(state): State<AppState>,
    current: CurrentUser,
    QueryParams(query): QueryParams<ReportQuery>,
) -> ApiResult<Response> {
    answer(&state, &current, query, Report::DriverEarnings).await
}

async fn answer(state: &AppState, current: &CurrentUser, query: ReportQuery, report: Report) -> ApiResult<Response> {
    let settings = state.runtime.catalog().settings.clone();
    let principal = &current.principal;
    authorize(Some(principal), report.action(), Resource::None, &settings)?;
    if query.format != Format::Json {
        authorize(Some(principal), Action::ReportsExport, Resource::None, &settings)?;
    }
    // A page size is checked whatever the format; a cursor means something
    // only to a paged JSON answer, so anywhere else it is refused, not ignored.
    let page = query.limit.map(|limit| super::page_request(Some(limit), query.after.clone())).transpose()?;
    if query.after.is_some() && (page.is_none() || query.format != Format::Json) {
        return Err(ApiError::field(ErrorKey::InvalidInput, "after"));
    }
    // The platform's reporting zone unless the caller asks for another; in it,
    // storage answers a month from its roll-up.
    let utc_offset_minutes = query.utc_offset_minutes.unwrap_or(state.config.reports.utc_offset_minutes);
    let period = PeriodQuery { year: query.year, month: query.month, from: query.from, until: query.until };
    let period = report_period(period, utc_offset_minutes)?;
    let driver = match query.driver {
        Some(id) => Some(UserRef::from(&state.storage.user(id).await?)),
        None => None,
    };
    let viewable = report_scope(principal, driver)?;
    let decimals = settings.decimal;
    let scope = EarningsScope {
        fleetadmin: viewable.fleet,
        driver: viewable.driver,
        tripdate_from: period.from,
        tripdate_until: period.until,
        utc_offset_minutes,
        decimals,
    };
    if query.format == Format::Json
        && let Some(page) = page
    {
        return Ok(match report {
            Report::DriverEarnings => {
                let page = state.storage.driver_earnings_page(&scope, &page).await?;
                Json(json!({ "rows": page.items, "next": page.next })).into_response()
            }
            Report::EarningsReport => {
                let page = state.storage.earnings_report_page(&scope, &page).await?;
                Json(json!({ "rows": page.items, "next": page.next })).into_response()
            }
        });
    }
    let table = match report {
        Report::DriverEarnings => {
            let rows = state.storage.driver_earnings(&scope).await?;
            if query.format == Format::Json {
                return Ok(Json(json!({ "rows": rows })).into_response());
            }
            export::driver_earnings_table(&rows, decimals)
        }
        Report::EarningsReport => {
            let rows = state.storage.earnings_report(&scope).await?;
            if query.format == Format::Json {
                return Ok(Json(json!({ "rows": rows })).into_response());
            }
            export::earnings_report_table(&rows, decimals)
        }
    };
    file_response(table, query.format, file_name(report, &query)).await
}

/// A table as a download: `stem` names the file (with its extension).
pub(crate) async fn file_response(table: export::Table, format: Format, name: String) -> ApiResult<Response> {
    let name = if name.contains('.') {
        name
    } else {
        format!("{name}.{}", if format == Format::Xlsx { "xlsx" } else { "csv" })
    };
    // Writing a workbook is CPU work that grows with the rows: off the async threads.
    let (content_type, bytes) = tokio::task::spawn_blocking(move || match format {
        Format::Xlsx => export::to_xlsx(&table).map(|bytes| (XLSX_TYPE, bytes)),
        _ => Ok((CSV_TYPE, export::to_csv(&table).into_bytes())),
    })
    .await
    .map_err(|error| ApiError::Internal(error.to_string()))?
    .map_err(|error| ApiError::Internal(error.to_string()))?;
    let disposition = HeaderValue::from_str(&format!("attachment; filename=\"{name}\""))
        .map_err(|error| ApiError::Internal(error.to_string()))?;
    Ok((
        [(header::CONTENT_TYPE, HeaderValue::from_static(content_type)), (header::CONTENT_DISPOSITION, disposition)],
        bytes,
    )
        .into_response())
}

/// `earnings-report-2027-01.csv`, `driver-earnings-2027.xlsx`,
/// `earnings-report.csv`: the period when it is a calendar one.
fn file_name(report: Report, query: &ReportQuery) -> String {
    let extension = if query.format == Format::Xlsx { "xlsx" } else { "csv" };
    let period = match (query.year, query.month) {
        (Some(year), Some(month)) => format!("-{year:04}-{month:02}"),
        (Some(year), None) => format!("-{year:04}"),
        _ => String::new(),
    };
    format!("{}{period}.{extension}", report.file_stem())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names_carry_the_report_and_its_calendar_period() {
        let query = |year, month, format| ReportQuery { year, month, format, ..ReportQuery::default() };
        assert_eq!(
            file_name(Report::EarningsReport, &query(Some(2027), Some(1), Format::Csv)),
            "earnings-report-2027-01.csv"
        );
        assert_eq!(
            file_name(Report::DriverEarnings, &query(Some(2027), None, Format::Xlsx)),
            "driver-earnings-2027.xlsx"
        );
        assert_eq!(file_name(Report::EarningsReport, &query(None, None, Format::Csv)), "earnings-report.csv");
    }
}
