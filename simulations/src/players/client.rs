//! The server's public API as the apps reach it: REST calls with a
//! session, sign-in through the dev outbox, and a driver's Socket.IO
//! connection (offers heard, positions sent). Live mode and the living demo
//! both play their people through it.

use futures_util::future::{BoxFuture, FutureExt};
use reqwest::Method;
use rust_socketio::asynchronous::{Client as Socket, ClientBuilder as SocketBuilder};
use rust_socketio::{Event, Payload, TransportType};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};
use tokio::time::timeout;
use wayfare_engine::LatLng;

const DEMO_DOMAIN: &str = "@demo.wayfare";
/// A REST call or an acknowledgement that takes longer has failed.
pub(crate) const CALL_TIMEOUT: Duration = Duration::from_secs(30);
/// A driver's socket tries this many times (1 to 5 s apart) to come back.
const RECONNECT_ATTEMPTS: u8 = 20;

/// A refused or failed call: the HTTP status (none when the server never
/// answered) and the error's translation key.
#[derive(Debug, Clone, PartialEq)]
pub struct Refused {
    pub status: Option<u16>,
    pub code: String,
}

impl Refused {
    pub(crate) fn network(error: impl fmt::Display) -> Refused {
        Refused { status: None, code: format!("network ({error})") }
    }

    /// An answer no valid request should get.
    pub(crate) fn is_server_fault(&self) -> bool {
        self.status.is_some_and(|status| status >= 500)
            || ["internal_error", "invalid_input", "json_error"].contains(&self.code.as_str())
    }

    /// The offer went to someone else, or lapsed, before the answer.
    pub(crate) fn is_lost_offer(&self) -> bool {
        ["booking_taken", "not_offered"].contains(&self.code.as_str())
    }

    /// The key in the summary's errors: the code, without a network error's detail.
    pub(crate) fn key(&self) -> &str {
        if self.status.is_none() { "network" } else { &self.code }
    }
}

impl fmt::Display for Refused {
    fn fmt(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.status {
            Some(status) => write!(out, "{status} {}", self.code),
            None => write!(out, "{}", self.code),
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum LiveError {
    #[error("--speed must be a number above 0, not {0}")]
    BadSpeed(f64),
    #[error("no Wayfare server answers at {url}: {message}")]
    Unreachable { url: String, message: String },
    #[error(
        "the server's dev outbox is off: live mode signs in the demo people (`wayfare serve --demo`) with the codes it shows"
    )]
    NoDevOutbox,
    #[error("signing in {contact}: {refused}{}", sign_in_hint(.refused))]
    SignIn { contact: String, refused: Refused },
    #[error("the car type `{0}` is not on the server")]
    UnknownCarType(String),
    #[error("the server has no approved demo driver (driverN@demo.wayfare) of the car type `{0}`")]
    NoDrivers(String),
    #[error("the server masks e-mails (demo mode): live mode cannot find the demo people")]
    MaskedContacts,
    #[error("the server has no demo rider (riderN@demo.wayfare)")]
    NoRiders,
    #[error("{what}: {refused}")]
    Refused { what: String, refused: Refused },
    #[error("{driver}'s socket: {message}")]
    Socket { driver: String, message: String },
}

fn sign_in_hint(refused: &Refused) -> &'static str {
    if refused.code == "too_many_attempts" {
        " (the server limits sign-in codes per client address and per contact in a window: raise auth.codes_per_client and auth.codes_per_contact, e.g. WAYFARE_AUTH__CODES_PER_CLIENT, for a big fleet or for many runs)"
    } else {
        ""
    }
}

/// The server's REST API.
#[derive(Clone)]
pub(crate) struct Api {
    http: reqwest::Client,
    /// The server's URL without a trailing slash.
    base: String,
}

impl Api {
    pub(crate) fn new(url: &str) -> Result<Api, LiveError> {
        let unreachable = |message: String| LiveError::Unreachable { url: url.to_string(), message };
        // Explicitly rustls, as the rest of the workspace: the Socket.IO
        // client also builds reqwest's native TLS, which would otherwise be the default.
        let http = reqwest::Client::builder()
            .use_rustls_tls()
            .timeout(CALL_TIMEOUT)
            .build()
            .map_err(|error| unreachable(error.to_string()))?;
        let base = url.trim_end_matches('/').to_string();
        if !(base.starts_with("http://") || base.starts_with("https://")) {
            return Err(unreachable("expected an http:// or https:// URL".into()));
        }
        Ok(Api { http, base })
    }

    pub(crate) async fn health(&self) -> Result<(), LiveError> {
        let unreachable = |message: String| LiveError::Unreachable { url: self.base.clone(), message };
        let answer = self.http.get(format!("{}/healthz", self.base)).send().await;
        match answer {
            Ok(answer) if answer.status().is_success() => Ok(()),
            Ok(answer) => Err(unreachable(format!("/healthz answered {}", answer.status()))),
            Err(error) => Err(unreachable(error.to_string())),
        }
    }

    /// A call to `/api/v1{path}`: the JSON answer, or why not.
    pub(crate) async fn call(
        &self,
        method: Method,
        path: &str,
        token: Option<&str>,
        body: Option<Value>,
    ) -> Result<Value, Refused> {
        let mut request = self.http.request(method, format!("{}/api/v1{path}", self.base));
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        if let Some(body) = body {
            request = request.header(reqwest::header::CONTENT_TYPE, "application/json").body(body.to_string());
        }
        let answer = request.send().await.map_err(Refused::network)?;
        let status = answer.status();
        let bytes = answer.bytes().await.map_err(Refused::network)?;
        let value: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
        if status.is_success() {
            return Ok(value);
        }
        let code = value["error"]["code"].as_str().map_or_else(|| format!("http_{}", status.as_u16()), str::to_string);
        Err(Refused { status: Some(status.as_u16()), code })
    }

    pub(crate) async fn get(&self, path: &str, token: &str) -> Result<Value, Refused> {
        self.call(Method::GET, path, Some(token), None).await
    }

    pub(crate) async fn post(&self, path: &str, token: &str, body: Option<Value>) -> Result<Value, Refused> {
        self.call(Method::POST, path, Some(token), body).await
    }

    /// Signs in with the code the dev outbox shows, as the demo's people do.
    pub(crate) async fn sign_in(&self, contact: &str) -> Result<Person, LiveError> {
        let failed = |refused: Refused| LiveError::SignIn { contact: contact.to_string(), refused };
        self.call(Method::POST, "/auth/otp/request", None, Some(json!({ "contact": contact })))
            .await
            .map_err(failed)?;
        let outbox = match self.call(Method::GET, &format!("/dev/outbox?to={contact}"), None, None).await {
            Ok(outbox) => outbox,
            Err(refused) if refused.status == Some(404) => return Err(LiveError::NoDevOutbox),
            Err(refused) => return Err(failed(refused)),
        };
        let Some(code) = outbox["messages"][0]["code"].as_str() else {
            return Err(failed(Refused { status: None, code: "no code in the dev outbox".into() }));
        };
        let body = json!({ "contact": contact, "code": code });
        let signed_in = self.call(Method::POST, "/auth/otp/verify", None, Some(body)).await.map_err(failed)?;
        let (Some(token), Some(id)) = (signed_in["token"].as_str(), signed_in["user"]["id"].as_str()) else {
            return Err(failed(Refused { status: None, code: "no token in the answer".into() }));
        };
        Ok(Person { email: contact.to_string(), id: id.to_string(), token: token.to_string() })
    }

    /// Every user of `role` whose e-mail is `{role}N@demo.wayfare` (and,
    /// when given, drives `car_type`), by N.
    pub(crate) async fn demo_people(
        &self,
        admin: &str,
        role: &str,
        car_type: Option<&str>,
    ) -> Result<Vec<String>, LiveError> {
        let mut found = BTreeMap::new();
        let mut masked = false;
        let mut after: Option<String> = None;
        loop {
            let mut path = format!("/users?role={role}&approved=true&search=demo.wayfare&limit=500");
            if let Some(after) = &after {
                path.push_str(&format!("&after={after}"));
            }
            let page = self
                .get(&path, admin)
                .await
                .map_err(|refused| LiveError::Refused { what: format!("listing the demo {role}s"), refused })?;
            for user in page["items"].as_array().into_iter().flatten() {
                let email = user["email"].as_str().unwrap_or_default();
                masked |= email.contains('*');
                let number = email
                    .strip_suffix(DEMO_DOMAIN)
                    .and_then(|local| local.strip_prefix(role))
                    .and_then(|number| number.parse::<u32>().ok());
                let drives = car_type.is_none_or(|name| user["carType"].as_str() == Some(name));
                if let Some(number) = number
                    && drives
                {
                    found.insert(number, email.to_string());
                }
            }
            match page["next"].as_str() {
                Some(next) => after = Some(next.to_string()),
                None => break,
            }
        }
        if found.is_empty() && masked {
            return Err(LiveError::MaskedContacts);
        }
        Ok(found.into_values().collect())
    }
}

/// A signed-in demo person: the session token the apps send.
#[derive(Debug, Clone)]
pub struct Person {
    pub email: String,
    pub id: String,
    pub token: String,
}

/// What a driver's socket hears.
#[derive(Debug)]
pub(crate) enum Heard {
    Offer(Value),
    Withdrawn(String),
    Closed,
}

/// The first argument of an event.
pub(crate) fn first_argument(payload: Payload) -> Value {
    match payload {
        Payload::Text(mut values) if !values.is_empty() => values.swap_remove(0),
        #[allow(deprecated)]
        Payload::String(text) => serde_json::from_str(&text).unwrap_or(Value::String(text)),
        _ => Value::Null,
    }
}

/// A driver's socket, connected with the session token; `offer` and
/// `offer_withdrawn` arrive on the receiver. The callbacks only forward:
/// the client runs them on its reading task. `reconnect`: as the app, come
/// back after a server restart (a player inside the server never needs to,
/// and must not hold the server's shutdown up by coming back).
pub(crate) async fn connect_socket(
    api: &Api,
    driver: &Person,
    reconnect: bool,
) -> Result<(Socket, mpsc::UnboundedReceiver<Heard>), LiveError> {
    let failed = |message: String| LiveError::Socket { driver: driver.email.clone(), message };
    let (heard, hearing) = mpsc::unbounded_channel();
    let (connected_tx, connected) = oneshot::channel::<Result<(), String>>();
    let connected_tx = Arc::new(Mutex::new(Some(connected_tx)));
    let on_connect = connected_tx.clone();
    let (offers, withdrawals, closes) = (heard.clone(), heard.clone(), heard);
    let socket = SocketBuilder::new(format!("{}/socket.io/", api.base))
        .auth(json!({ "token": driver.token }))
        .transport_type(TransportType::Websocket)
        // Back after a server restart, but not forever.
        .reconnect_on_disconnect(reconnect)
        .max_reconnect_attempts(RECONNECT_ATTEMPTS)
        .on("offer", move |payload, _| {
            let _ = offers.send(Heard::Offer(first_argument(payload)));
            async {}.boxed()
        })
        .on("offer_withdrawn", move |payload, _| {
            let booking = first_argument(payload)["booking"].as_str().unwrap_or_default().to_string();
            let _ = withdrawals.send(Heard::Withdrawn(booking));
            async {}.boxed()
        })
        .on(Event::Connect, move |_, _| {
            if let Some(sender) = on_connect.lock().expect("connect lock").take() {
                let _ = sender.send(Ok(()));
            }
            async {}.boxed()
        })
        .on(Event::Error, move |payload, _| {
            // Before the connection: the handshake was refused.
            if let Some(sender) = connected_tx.lock().expect("connect lock").take() {
                let _ = sender.send(Err(first_argument(payload).to_string()));
            }
            async {}.boxed()
        })
        .on(Event::Close, move |_, _| {
            let _ = closes.send(Heard::Closed);
            async {}.boxed()
        })
        .connect()
        .await
        .map_err(|error| failed(error.to_string()))?;
    match timeout(CALL_TIMEOUT, connected).await {
        Ok(Ok(Ok(()))) => Ok((socket, hearing)),
        Ok(Ok(Err(message))) => Err(failed(message)),
        Ok(Err(_)) | Err(_) => Err(failed("no connect answer".into())),
    }
}

/// Sends a position over a driver's socket and waits for its ack: the
/// server's refusal carries the REST error's key.
pub(crate) async fn emit_location(socket: &Socket, update: Value) -> Result<(), Refused> {
    let (acked, ack) = oneshot::channel();
    let mut acked = Some(acked);
    let callback = move |payload: Payload, _: Socket| -> BoxFuture<'static, ()> {
        if let Some(acked) = acked.take() {
            // The client hands an ack's arguments over as one JSON array.
            let answer = match first_argument(payload) {
                Value::Array(mut arguments) if !arguments.is_empty() => arguments.swap_remove(0),
                other => other,
            };
            let _ = acked.send(answer);
        }
        async {}.boxed()
    };
    socket
        .emit_with_ack("location", update, CALL_TIMEOUT, callback)
        .await
        .map_err(|error| Refused::network(error.to_string()))?;
    let answer = match timeout(CALL_TIMEOUT, ack).await {
        Ok(Ok(answer)) => answer,
        _ => return Err(Refused::network("no ack")),
    };
    if answer["ok"] == true {
        return Ok(());
    }
    let code = answer["error"]["code"].as_str().unwrap_or("no_ack_body").to_string();
    // The ack carries the REST error's key, not a status.
    let status = if code == "internal_error" { 500 } else { 400 };
    Err(Refused { status: Some(status), code })
}

/// The device's clock, in ms since the epoch.
pub(crate) fn epoch_ms() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |since| since.as_millis() as i64)
}

/// Degrees clockwise from north, for the app's `heading`.
pub(crate) fn bearing(from: LatLng, to: LatLng) -> f64 {
    let east = (to.lng - from.lng) * from.lat.to_radians().cos();
    let north = to.lat - from.lat;
    (east.atan2(north).to_degrees() + 360.0) % 360.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn server_faults_are_5xx_and_malformed_requests_not_refusals() {
        let refused = |status: u16, code: &str| Refused { status: Some(status), code: code.into() };
        assert!(refused(500, "internal_error").is_server_fault());
        assert!(refused(502, "http_502").is_server_fault());
        assert!(refused(400, "invalid_input").is_server_fault());
        assert!(!refused(409, "booking_taken").is_server_fault());
        assert!(!refused(400, "no_route_found").is_server_fault());
        assert!(!Refused::network("connection refused").is_server_fault());
        assert!(refused(409, "booking_taken").is_lost_offer());
        assert!(refused(403, "not_offered").is_lost_offer());
        assert!(!refused(409, "status_not_allowed").is_lost_offer());
    }

    #[test]
    fn network_failures_share_one_key_in_the_errors() {
        assert_eq!(Refused::network("connection reset by peer").key(), "network");
        assert_eq!(Refused { status: Some(409), code: "booking_taken".into() }.key(), "booking_taken");
    }

    #[test]
    fn headings_are_degrees_clockwise_from_north() {
        let here = LatLng::new(39.28, -76.58);
        let close = |actual: f64, expected: f64| assert!((actual - expected).abs() < 0.5, "{actual} vs {expected}");
        close(bearing(here, LatLng::new(39.29, -76.58)), 0.0);
        close(bearing(here, LatLng::new(39.28, -76.57)), 90.0);
        close(bearing(here, LatLng::new(39.27, -76.58)), 180.0);
        close(bearing(here, LatLng::new(39.28, -76.59)), 270.0);
    }
}
