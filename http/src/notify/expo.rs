//! The Expo push API (what the original mobile apps registered with): a JSON
//! array of messages POSTed to `https://exp.host/--/api/v2/push/send`, at
//! most 100 per request, each answered by a ticket (`ok` or `error`).

use super::push::{PushMessage, PushReport, PushSender};
use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::time::Duration;

/// Messages per request: the Expo API's limit, and how the original product batched.
pub const BATCH: usize = 100;

pub struct ExpoSender {
    client: reqwest::Client,
    url: String,
    access_token: Option<String>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ExpoMessage<'a> {
    to: &'a str,
    title: &'a str,
    body: &'a str,
    data: &'a Value,
    sound: &'static str,
    priority: &'static str,
    channel_id: &'a str,
}

#[derive(Deserialize)]
struct Tickets {
    #[serde(default)]
    data: Vec<Ticket>,
}

#[derive(Deserialize)]
struct Ticket {
    status: String,
    #[serde(default)]
    message: Option<String>,
}

impl ExpoSender {
    pub fn new(url: &str, access_token: Option<String>) -> Self {
        let client =
            reqwest::Client::builder().use_rustls_tls().timeout(Duration::from_secs(30)).build().unwrap_or_default();
        ExpoSender { client, url: url.to_string(), access_token: access_token.filter(|token| !token.is_empty()) }
    }

    async fn send_batch(&self, batch: &[PushMessage]) -> PushReport {
        let messages: Vec<ExpoMessage<'_>> = batch
            .iter()
            .map(|message| ExpoMessage {
                to: &message.token,
                title: &message.title,
                body: &message.body,
                data: &message.data,
                sound: "default",
                priority: "high",
                channel_id: &message.channel,
            })
            .collect();
        let body = match serde_json::to_vec(&messages) {
            Ok(body) => body,
            Err(error) => {
                tracing::warn!(%error, "expo push batch not serialised");
                return PushReport { sent: 0, failed: batch.len() };
            }
        };
        let mut request = self
            .client
            .post(&self.url)
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .header(reqwest::header::ACCEPT, "application/json")
            .body(body);
        if let Some(token) = &self.access_token {
            request = request.bearer_auth(token);
        }
        let response = match request.send().await {
            Ok(response) if response.status().is_success() => response,
            Ok(response) => {
                tracing::warn!(status = %response.status(), "expo push refused a batch");
                return PushReport { sent: 0, failed: batch.len() };
            }
            Err(error) => {
                tracing::warn!(%error, "expo push not reached");
                return PushReport { sent: 0, failed: batch.len() };
            }
        };
        let tickets: Tickets = match response.bytes().await.map(|bytes| serde_json::from_slice(&bytes)) {
            Ok(Ok(tickets)) => tickets,
            _ => {
                // Accepted, but the tickets are unreadable: count them sent.
                tracing::debug!("expo push tickets unreadable");
                return PushReport { sent: batch.len(), failed: 0 };
            }
        };
        let mut report = PushReport::default();
        for ticket in tickets.data {
            if ticket.status == "ok" {
                report.sent += 1;
            } else {
                report.failed += 1;
                tracing::debug!(message = ticket.message.as_deref().unwrap_or_default(), "expo push ticket error");
            }
        }
        report
    }
}

/// Expo push tokens look like `ExponentPushToken[…]` (older `ExpoPushToken[…]`).
pub fn is_expo_token(token: &str) -> bool {
    (token.starts_with("ExponentPushToken[") || token.starts_with("ExpoPushToken[")) && token.ends_with(']')
}

#[async_trait]
impl PushSender for ExpoSender {
    fn name(&self) -> &'static str {
        "expo"
    }

    fn accepts(&self, token: &str) -> bool {
        is_expo_token(token)
    }

    async fn send(&self, messages: &[PushMessage]) -> PushReport {
        let mut report = PushReport::default();
        for batch in messages.chunks(BATCH) {
            report += self.send_batch(batch).await;
        }
        report
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderMap;
    use wayfare_engine::UserPlatform;

    fn message(number: usize) -> PushMessage {
        PushMessage {
            token: format!("ExponentPushToken[device-{number}]"),
            platform: UserPlatform::Android,
            title: "Wayfare".into(),
            body: "Your driver has arrived.".into(),
            data: serde_json::json!({ "screen": "BookedCab", "params": { "bookingId": "b-1" } }),
            channel: "bookings-repeat".into(),
        }
    }

    /// A fake Expo push API: keeps each request's headers and messages, and
    /// answers one ticket per message (an error for `device-13`).
    async fn fake_expo() -> (String, tokio::sync::mpsc::UnboundedReceiver<(HeaderMap, Vec<Value>)>) {
        let (sender, received) = tokio::sync::mpsc::unbounded_channel();
        let api = axum::Router::new().route(
            "/--/api/v2/push/send",
            axum::routing::post(move |headers: HeaderMap, axum::Json(messages): axum::Json<Vec<Value>>| {
                let sender = sender.clone();
                async move {
                    let tickets: Vec<Value> = messages
                        .iter()
                        .map(|message| {
                            if message["to"] == "ExponentPushToken[device-13]" {
                                serde_json::json!({ "status": "error", "message": "not registered", "details": { "error": "DeviceNotRegistered" } })
                            } else {
                                serde_json::json!({ "status": "ok", "id": "ticket" })
                            }
                        })
                        .collect();
                    sender.send((headers, messages)).unwrap();
                    axum::Json(serde_json::json!({ "data": tickets }))
                }
            }),
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, api).await.unwrap() });
        (format!("http://{address}/--/api/v2/push/send"), received)
    }

    #[tokio::test]
    async fn messages_go_out_in_batches_of_one_hundred() {
        let (url, mut received) = fake_expo().await;
        let sender = ExpoSender::new(&url, Some("expo-access".into()));
        let messages: Vec<PushMessage> = (0..250).map(message).collect();
        let report = sender.send(&messages).await;
        assert_eq!(report, PushReport { sent: 249, failed: 1 }, "device-13's ticket is an error");
        let mut sizes = Vec::new();
        let mut tokens = Vec::new();
        while let Ok((headers, batch)) = received.try_recv() {
            assert_eq!(headers["authorization"], "Bearer expo-access");
            assert_eq!(headers["content-type"], "application/json");
            sizes.push(batch.len());
            tokens.extend(batch.iter().map(|message| message["to"].as_str().unwrap().to_string()));
            let first = &batch[0];
            assert_eq!(first["title"], "Wayfare");
            assert_eq!(first["body"], "Your driver has arrived.");
            assert_eq!(first["channelId"], "bookings-repeat");
            assert_eq!(first["data"]["screen"], "BookedCab");
            assert_eq!(first["sound"], "default");
        }
        assert_eq!(sizes, [100, 100, 50]);
        assert_eq!(
            tokens,
            messages.iter().map(|message| message.token.clone()).collect::<Vec<_>>(),
            "every message once, in order"
        );
    }

    #[tokio::test]
    async fn an_unreachable_service_counts_the_batch_failed() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        drop(listener);
        let sender = ExpoSender::new(&format!("http://{address}/send"), None);
        assert_eq!(sender.send(&[message(1), message(2)]).await, PushReport { sent: 0, failed: 2 });
    }

    #[test]
    fn only_expo_tokens_are_accepted() {
        let sender = ExpoSender::new("http://localhost/", None);
        assert!(sender.accepts("ExponentPushToken[xxxxxxxxxxxxxxxxxxxxxx]"));
        assert!(sender.accepts("ExpoPushToken[abc]"));
        assert!(!sender.accepts("{\"endpoint\":\"https://push.example/1\"}"));
        assert!(!sender.accepts(""));
    }
}
