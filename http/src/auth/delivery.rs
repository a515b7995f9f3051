//! How sign-in codes and other messages (receipts) reach people: the dev
//! outbox (development and demos), SMTP e-mail, and an HTTP SMS gateway (a
//! Twilio-compatible form post).

use crate::config::DeliveryConfig;
use async_trait::async_trait;
use serde::Serialize;
use std::sync::{Arc, Mutex};
use wayfare_engine::Millis;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Channel {
    Email,
    Sms,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Outgoing {
    pub channel: Channel,
    pub to: String,
    pub subject: String,
    pub body: String,
    /// The code, kept only by the dev outbox.
    pub code: String,
    /// An HTML version of `body` (e-mail only).
    pub html: Option<String>,
    /// Files sent along (e-mail only).
    pub attachments: Vec<Attachment>,
}

/// A file attached to an e-mail.
#[derive(Debug, Clone, PartialEq)]
pub struct Attachment {
    pub filename: String,
    pub content_type: String,
    pub data: Vec<u8>,
}

/// An attachment as the dev outbox lists it: its name, type and size, and
/// its first bytes (so a test can see what it is).
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
pub struct OutboxAttachment {
    pub filename: String,
    pub content_type: String,
    /// Bytes.
    pub size: usize,
    /// The first 8 bytes, as text where they are ASCII (`%PDF-1.7`).
    pub starts_with: String,
}

#[derive(Debug, thiserror::Error)]
pub enum DeliveryError {
    #[error("no way to send {0:?} messages is configured")]
    NotConfigured(Channel),
    #[error("sending failed: {0}")]
    Failed(String),
}

#[async_trait]
pub trait CodeDelivery: Send + Sync {
    async fn send(&self, message: &Outgoing) -> Result<(), DeliveryError>;
}

/// A message as the dev outbox lists it.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
pub struct OutboxEntry {
    pub channel: Channel,
    pub to: String,
    pub subject: String,
    pub body: String,
    pub code: String,
    /// The HTML version of the body, when the message has one.
    pub html: Option<String>,
    pub attachments: Vec<OutboxAttachment>,
    pub at: Millis,
}

/// Keeps every message in memory, newest last. Only for development and
/// demos: whoever can read it can sign in as anyone.
#[derive(Debug, Default)]
pub struct DevOutbox {
    entries: Mutex<Vec<OutboxEntry>>,
}

impl DevOutbox {
    /// Messages to a contact, newest first.
    pub fn to(&self, contact: &str) -> Vec<OutboxEntry> {
        let entries = self.entries.lock().expect("outbox lock");
        entries.iter().rev().filter(|entry| entry.to.eq_ignore_ascii_case(contact)).cloned().collect()
    }

    fn now(&self) -> Millis {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|elapsed| elapsed.as_millis() as Millis)
            .unwrap_or(0)
    }
}

#[async_trait]
impl CodeDelivery for DevOutbox {
    async fn send(&self, message: &Outgoing) -> Result<(), DeliveryError> {
        let entry = OutboxEntry {
            channel: message.channel,
            to: message.to.clone(),
            subject: message.subject.clone(),
            body: message.body.clone(),
            code: message.code.clone(),
            html: message.html.clone(),
            attachments: message
                .attachments
                .iter()
                .map(|attachment| OutboxAttachment {
                    filename: attachment.filename.clone(),
                    content_type: attachment.content_type.clone(),
                    size: attachment.data.len(),
                    starts_with: attachment
                        .data
                        .iter()
                        .take(8)
                        .map(|byte| if byte.is_ascii_graphic() { char::from(*byte) } else { '.' })
                        .collect(),
                })
                .collect(),
            at: self.now(),
        };
        let mut entries = self.entries.lock().expect("outbox lock");
        // A bounded outbox: a long demo must not grow memory forever.
        if entries.len() >= 10_000 {
            entries.drain(..1_000);
        }
        entries.push(entry);
        Ok(())
    }
}

/// E-mail through an SMTP relay.
pub struct SmtpDelivery {
    transport: lettre::AsyncSmtpTransport<lettre::Tokio1Executor>,
    from: lettre::message::Mailbox,
}

impl SmtpDelivery {
    pub fn new(url: &str, from: &str) -> Result<Self, DeliveryError> {
        let transport = lettre::AsyncSmtpTransport::<lettre::Tokio1Executor>::from_url(url)
            .map_err(|error| DeliveryError::Failed(error.to_string()))?
            .build();
        let from =
            from.parse().map_err(|error: lettre::address::AddressError| DeliveryError::Failed(error.to_string()))?;
        Ok(SmtpDelivery { transport, from })
    }
}

#[async_trait]
impl CodeDelivery for SmtpDelivery {
    async fn send(&self, message: &Outgoing) -> Result<(), DeliveryError> {
        use lettre::AsyncTransport;
        let to = message
            .to
            .parse()
            .map_err(|error: lettre::address::AddressError| DeliveryError::Failed(error.to_string()))?;
        let builder = lettre::Message::builder().from(self.from.clone()).to(to).subject(&message.subject);
        let email = if message.html.is_none() && message.attachments.is_empty() {
            builder.body(message.body.clone())
        } else {
            builder.multipart(multipart_body(message)?)
        }
        .map_err(|error| DeliveryError::Failed(error.to_string()))?;
        self.transport.send(email).await.map(|_| ()).map_err(|error| DeliveryError::Failed(error.to_string()))
    }
}

/// The text and HTML bodies as alternatives, with the attachments after.
fn multipart_body(message: &Outgoing) -> Result<lettre::message::MultiPart, DeliveryError> {
    use lettre::message::{MultiPart, SinglePart, header::ContentType};
    let alternative = match &message.html {
        Some(html) => MultiPart::alternative_plain_html(message.body.clone(), html.clone()),
        None => MultiPart::alternative().singlepart(SinglePart::plain(message.body.clone())),
    };
    let mut mixed = MultiPart::mixed().multipart(alternative);
    for attachment in &message.attachments {
        let content_type =
            ContentType::parse(&attachment.content_type).map_err(|error| DeliveryError::Failed(error.to_string()))?;
        mixed = mixed.singlepart(
            lettre::message::Attachment::new(attachment.filename.clone()).body(attachment.data.clone(), content_type),
        );
    }
    Ok(mixed)
}

/// SMS through a Twilio-compatible HTTP API (`To`, `From`, `Body` form fields,
/// basic auth with the account and token).
pub struct SmsGateway {
    client: reqwest::Client,
    url: String,
    account: String,
    token: String,
    from: String,
}

#[async_trait]
impl CodeDelivery for SmsGateway {
    async fn send(&self, message: &Outgoing) -> Result<(), DeliveryError> {
        let response = self
            .client
            .post(&self.url)
            .basic_auth(&self.account, Some(&self.token))
            .form(&[("To", message.to.as_str()), ("From", self.from.as_str()), ("Body", message.body.as_str())])
            .send()
            .await
            .map_err(|error| DeliveryError::Failed(error.to_string()))?;
        if response.status().is_success() {
            Ok(())
        } else {
            Err(DeliveryError::Failed(format!("gateway answered {}", response.status())))
        }
    }
}

/// The configured ways out; the dev outbox, when on, takes every message.
#[derive(Clone, Default)]
pub struct Deliveries {
    pub outbox: Option<Arc<DevOutbox>>,
    pub email: Option<Arc<dyn CodeDelivery>>,
    pub sms: Option<Arc<dyn CodeDelivery>>,
}

impl Deliveries {
    pub fn from_config(config: &DeliveryConfig) -> Result<Deliveries, DeliveryError> {
        let outbox = config.dev_outbox.then(|| Arc::new(DevOutbox::default()));
        let email = match &config.smtp_url {
            Some(url) => Some(Arc::new(SmtpDelivery::new(url, &config.email_from)?) as Arc<dyn CodeDelivery>),
            None => None,
        };
        let sms = match (&config.sms_url, &config.sms_account, &config.sms_token, &config.sms_from) {
            (Some(url), Some(account), Some(token), Some(from)) => Some(Arc::new(SmsGateway {
                client: reqwest::Client::builder().use_rustls_tls().build().unwrap_or_default(),
                url: url.clone(),
                account: account.clone(),
                token: token.clone(),
                from: from.clone(),
            }) as Arc<dyn CodeDelivery>),
            _ => None,
        };
        Ok(Deliveries { outbox, email, sms })
    }

    pub async fn send(&self, message: &Outgoing) -> Result<(), DeliveryError> {
        if let Some(outbox) = &self.outbox {
            tracing::info!(to = %message.to, subject = %message.subject, "message put in the dev outbox");
            return outbox.send(message).await;
        }
        let delivery = match message.channel {
            Channel::Email => self.email.as_ref(),
            Channel::Sms => self.sms.as_ref(),
        };
        match delivery {
            Some(delivery) => delivery.send(message).await,
            None => Err(DeliveryError::NotConfigured(message.channel)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(to: &str, code: &str) -> Outgoing {
        Outgoing {
            channel: Channel::Email,
            to: to.into(),
            subject: "s".into(),
            body: "b".into(),
            code: code.into(),
            html: None,
            attachments: Vec::new(),
        }
    }

    #[tokio::test]
    async fn the_outbox_lists_a_contacts_messages_newest_first() {
        let outbox = DevOutbox::default();
        outbox.send(&message("a@x.io", "111111")).await.unwrap();
        outbox.send(&message("b@x.io", "222222")).await.unwrap();
        outbox.send(&message("A@x.io", "333333")).await.unwrap();
        let codes: Vec<String> = outbox.to("a@x.io").into_iter().map(|entry| entry.code).collect();
        assert_eq!(codes, vec!["333333", "111111"]);
    }

    #[tokio::test]
    async fn the_sms_gateway_posts_a_twilio_style_form_with_basic_auth() {
        use axum::extract::Form;
        use axum::http::HeaderMap;
        use std::collections::HashMap;
        let (sender, mut received) = tokio::sync::mpsc::unbounded_channel();
        let gateway = axum::Router::new().route(
            "/Messages.json",
            axum::routing::post(move |headers: HeaderMap, Form(form): Form<HashMap<String, String>>| {
                let sender = sender.clone();
                async move {
                    let auth = headers
                        .get("authorization")
                        .and_then(|value| value.to_str().ok())
                        .unwrap_or_default()
                        .to_string();
                    sender.send((auth, form)).unwrap();
                    axum::http::StatusCode::CREATED
                }
            }),
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, gateway).await.unwrap() });
        let config = DeliveryConfig {
            sms_url: Some(format!("http://{address}/Messages.json")),
            sms_account: Some("AC123".into()),
            sms_token: Some("secret".into()),
            sms_from: Some("+15550001111".into()),
            ..DeliveryConfig::default()
        };
        let deliveries = Deliveries::from_config(&config).unwrap();
        let sms = Outgoing {
            channel: Channel::Sms,
            to: "+14105550100".into(),
            subject: String::new(),
            body: "Your code is 123456".into(),
            code: "123456".into(),
            html: None,
            attachments: Vec::new(),
        };
        deliveries.send(&sms).await.unwrap();
        let (auth, form) = received.recv().await.unwrap();
        assert_eq!(auth, "Basic QUMxMjM6c2VjcmV0", "basic auth with the account and token");
        assert_eq!(form["To"], "+14105550100");
        assert_eq!(form["From"], "+15550001111");
        assert_eq!(form["Body"], "Your code is 123456");
        // E-mail is not configured: refused, not silently dropped.
        let email = Outgoing { channel: Channel::Email, ..sms };
        assert!(matches!(deliveries.send(&email).await, Err(DeliveryError::NotConfigured(Channel::Email))));
    }

    /// A minimal SMTP server: answers each command and keeps the message.
    async fn fake_smtp() -> (String, tokio::sync::oneshot::Receiver<String>) {
        use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("smtp://{}", listener.local_addr().unwrap());
        let (done, message) = tokio::sync::oneshot::channel();
        tokio::spawn(async move {
            let (stream, _) = listener.accept().await.unwrap();
            let (reader, mut writer) = stream.into_split();
            let mut lines = BufReader::new(reader).lines();
            writer.write_all(b"220 fake ESMTP\r\n").await.unwrap();
            let mut data = String::new();
            let mut in_data = false;
            while let Ok(Some(line)) = lines.next_line().await {
                if in_data {
                    if line == "." {
                        in_data = false;
                        writer.write_all(b"250 queued\r\n").await.unwrap();
                    } else {
                        data.push_str(&line);
                        data.push('\n');
                    }
                    continue;
                }
                let verb = line.split_whitespace().next().unwrap_or_default().to_uppercase();
                let reply: &[u8] = match verb.as_str() {
                    "EHLO" | "HELO" => b"250 fake\r\n",
                    "DATA" => {
                        in_data = true;
                        b"354 go ahead\r\n"
                    }
                    "QUIT" => {
                        writer.write_all(b"221 bye\r\n").await.unwrap();
                        break;
                    }
                    _ => b"250 ok\r\n",
                };
                writer.write_all(reply).await.unwrap();
            }
            let _ = done.send(data);
        });
        (url, message)
    }

    #[tokio::test]
    async fn an_email_code_goes_out_through_smtp() {
        let (url, message) = fake_smtp().await;
        let config = DeliveryConfig {
            smtp_url: Some(url),
            email_from: "Wayfare <no-reply@wayfare.test>".into(),
            ..DeliveryConfig::default()
        };
        let deliveries = Deliveries::from_config(&config).unwrap();
        let email = Outgoing {
            channel: Channel::Email,
            to: "rider@example.com".into(),
            subject: "Your code".into(),
            body: "Your sign-in code is 654321.".into(),
            code: "654321".into(),
            html: None,
            attachments: Vec::new(),
        };
        deliveries.send(&email).await.unwrap();
        let sent = message.await.unwrap();
        assert!(sent.contains("To: rider@example.com"), "{sent}");
        assert!(sent.contains("Subject: Your code"), "{sent}");
        assert!(sent.contains("654321"), "{sent}");
    }

    #[tokio::test]
    async fn an_email_with_html_and_an_attachment_goes_out_as_multipart() {
        let (url, message) = fake_smtp().await;
        let config = DeliveryConfig {
            smtp_url: Some(url),
            email_from: "Wayfare <no-reply@wayfare.test>".into(),
            ..DeliveryConfig::default()
        };
        let deliveries = Deliveries::from_config(&config).unwrap();
        let email = Outgoing {
            channel: Channel::Email,
            to: "rider@example.com".into(),
            subject: "Your receipt".into(),
            body: "Receipt ABC".into(),
            code: String::new(),
            html: Some("<p>Receipt ABC</p>".into()),
            attachments: vec![Attachment {
                filename: "receipt-ABC.pdf".into(),
                content_type: "application/pdf".into(),
                data: b"%PDF-1.7 test".to_vec(),
            }],
        };
        deliveries.send(&email).await.unwrap();
        let sent = message.await.unwrap();
        assert!(sent.contains("multipart/mixed"), "{sent}");
        assert!(sent.contains("multipart/alternative"), "{sent}");
        assert!(sent.contains("text/html"), "{sent}");
        assert!(sent.contains("application/pdf"), "{sent}");
        assert!(sent.contains("receipt-ABC.pdf"), "{sent}");
    }

    #[tokio::test]
    async fn a_failing_gateway_is_an_error() {
        let gateway = axum::Router::new()
            .route("/Messages.json", axum::routing::post(|| async { axum::http::StatusCode::BAD_GATEWAY }));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, gateway).await.unwrap() });
        let config = DeliveryConfig {
            sms_url: Some(format!("http://{address}/Messages.json")),
            sms_account: Some("AC".into()),
            sms_token: Some("t".into()),
            sms_from: Some("+1".into()),
            ..DeliveryConfig::default()
        };
        let sms = Outgoing {
            channel: Channel::Sms,
            to: "+14105550100".into(),
            subject: String::new(),
            body: "b".into(),
            code: "1".into(),
            html: None,
            attachments: Vec::new(),
        };
        assert!(matches!(Deliveries::from_config(&config).unwrap().send(&sms).await, Err(DeliveryError::Failed(_))));
    }

    #[tokio::test]
    async fn without_the_outbox_or_a_sender_nothing_is_sent() {
        let deliveries = Deliveries::default();
        let error = deliveries.send(&message("a@x.io", "1")).await.unwrap_err();
        assert!(matches!(error, DeliveryError::NotConfigured(Channel::Email)));
    }
}
