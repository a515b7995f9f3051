//! The middleware that puts error answers in the reader's language: the
//! signed-in user's (told by the session extractors through
//! [`ReaderLanguage`], or read here when the handler failed first), else the
//! `Accept-Language` header's, else the default, else English.

use super::languages::{ReaderLanguage, accepted_locales};
use crate::auth::extract::{authenticate, token_of};
use crate::error::ErrorRendered;
use crate::state::AppState;
use axum::extract::{Request, State};
use axum::http::header::ACCEPT_LANGUAGE;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

/// Re-renders error answers in the reader's language.
pub async fn localize(State(state): State<AppState>, mut request: Request, next: Next) -> Response {
    let reader = ReaderLanguage::default();
    request.extensions_mut().insert(reader.clone());
    let accept = request.headers().get(ACCEPT_LANGUAGE).and_then(|value| value.to_str().ok()).map(str::to_string);
    let (parts, body) = request.into_parts();
    let token = token_of(&parts);
    let response = next.run(Request::from_parts(parts, body)).await;
    let Some(rendered) = response.extensions().get::<ErrorRendered>().cloned() else {
        return response;
    };
    let user_locale = match reader.known() {
        Some(known) => known,
        // The handler failed before reading the session (a bad path, a bad
        // body): read it now, for this error only.
        None => match token {
            Some(token) => {
                authenticate(&state, &token).await.ok().and_then(|user| user.user.lang.map(|lang| lang.langLocale))
            }
            None => None,
        },
    };
    let mut preferred: Vec<String> = user_locale.into_iter().collect();
    if preferred.is_empty() {
        preferred = accept.as_deref().map(accepted_locales).unwrap_or_default();
    }
    let languages = match state.languages.get(state.storage.as_ref()).await {
        Ok(languages) => languages,
        Err(error) => {
            tracing::warn!(%error, "languages not read; error left in english");
            return response;
        }
    };
    let localizer = languages.localizer(preferred.iter().map(String::as_str));
    let message = localizer.text(rendered.code);
    if message == rendered.message {
        return response;
    }
    let status = response.status();
    let mut localized = rendered.with_message(message).into_response();
    *localized.status_mut() = status;
    for (name, value) in response.headers() {
        if name != axum::http::header::CONTENT_LENGTH {
            localized.headers_mut().insert(name.clone(), value.clone());
        }
    }
    localized.headers_mut().insert(
        axum::http::header::CONTENT_LANGUAGE,
        axum::http::HeaderValue::from_str(localizer.locale()).unwrap_or(axum::http::HeaderValue::from_static("en")),
    );
    localized
}
