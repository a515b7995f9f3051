//! A demo server's router for tests: SQLite in a temporary directory, the
//! demo city seeded, the dev outbox on, called with `oneshot` (no socket).

use crate::config::Config;
use axum::Router;
use axum::body::Body;
use axum::http::{Method, Request, StatusCode, header};
use serde_json::Value;
use tower::ServiceExt;

pub struct TestApp {
    pub router: Router,
    pub state: crate::state::AppState,
    _data_dir: tempfile::TempDir,
}

/// An answer: the status, the content type and the body (JSON when it is JSON).
#[derive(Debug)]
pub struct Answer {
    pub status: StatusCode,
    pub content_type: String,
    pub text: String,
}

impl Answer {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.text).unwrap_or_else(|error| panic!("not JSON ({error}): {}", self.text))
    }
}

impl TestApp {
    pub async fn demo() -> TestApp {
        let data_dir = tempfile::tempdir().expect("a temporary directory");
        let mut config = Config { data_dir: data_dir.path().to_path_buf(), demo: true, ..Config::default() };
        config.delivery.dev_outbox = true;
        config.ui_dir = data_dir.path().join("no-ui");
        // The demo's past is its own tests' (demo::history); these start bare.
        config.demo_seed.history_days = 0;
        let state = crate::start(config).await.expect("the demo server starts");
        let router = crate::app(state.clone());
        TestApp { router, state, _data_dir: data_dir }
    }

    pub async fn call(&self, method: Method, uri: &str, token: Option<&str>, body: Option<Value>) -> Answer {
        let mut request = Request::builder().method(method).uri(uri);
        if let Some(token) = token {
            request = request.header(header::AUTHORIZATION, format!("Bearer {token}"));
        }
        let request = match body {
            Some(body) => request.header(header::CONTENT_TYPE, "application/json").body(Body::from(body.to_string())),
            None => request.body(Body::empty()),
        }
        .expect("a valid request");
        let response = self.router.clone().oneshot(request).await.expect("the router answers");
        let status = response.status();
        let content_type = response
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|value| value.to_str().ok())
            .unwrap_or_default()
            .to_string();
        let bytes = axum::body::to_bytes(response.into_body(), usize::MAX).await.expect("the body reads");
        Answer { status, content_type, text: String::from_utf8_lossy(&bytes).into_owned() }
    }

    /// Signs in with a code from the dev outbox; the session token.
    pub async fn sign_in(&self, email: &str) -> String {
        let sent = self
            .call(Method::POST, "/api/v1/auth/otp/request", None, Some(serde_json::json!({ "contact": email })))
            .await;
        assert_eq!(sent.status, StatusCode::OK, "{}", sent.text);
        let outbox = self.call(Method::GET, &format!("/api/v1/dev/outbox?to={email}"), None, None).await.json();
        let code = outbox["messages"][0]["code"].as_str().expect("a code in the outbox").to_string();
        let signed_in = self
            .call(
                Method::POST,
                "/api/v1/auth/otp/verify",
                None,
                Some(serde_json::json!({ "contact": email, "code": code })),
            )
            .await;
        assert_eq!(signed_in.status, StatusCode::OK, "{}", signed_in.text);
        signed_in.json()["token"].as_str().expect("a token").to_string()
    }
}
