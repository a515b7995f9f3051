//! A paid booking's receipt by e-mail: the HTML as the body, the PDF
//! attached, once per booking. The engine's `payment_received` notice to
//! the rider (sent when a booking becomes PAID, by card, cash or wallet) is
//! the trigger, read from the runtime's event bus beside the other
//! notifications; `receipt_mails` in storage makes it once, whatever the
//! replays and restarts.

use super::content::receipt_doc;
use super::{html, pdf};
use crate::auth::delivery::{Attachment, Channel, Deliveries, Outgoing};
use crate::i18n::LanguageCache;
use tokio::sync::broadcast;
use wayfare_actors::{Event, Runtime};
use wayfare_engine::BookingId;
use wayfare_engine::booking::NoticeKey;
use wayfare_engine::receipt::{has_receipt, receipt};

/// Sends receipts until the runtime's event bus closes.
pub async fn receipt_mails(
    runtime: Runtime,
    languages: LanguageCache,
    deliveries: Deliveries,
    utc_offset_minutes: i32,
) {
    let mut events = runtime.subscribe();
    loop {
        let event = match events.recv().await {
            Ok(event) => event,
            Err(broadcast::error::RecvError::Lagged(skipped)) => {
                tracing::warn!(skipped, "receipt mails lagged behind the event bus");
                continue;
            }
            Err(broadcast::error::RecvError::Closed) => break,
        };
        let Event::Notification { to, key: NoticeKey::PaymentReceived, booking: Some(booking) } = event.as_ref() else {
            continue;
        };
        let (booking, to) = (*booking, *to);
        let (runtime, languages, deliveries) = (runtime.clone(), languages.clone(), deliveries.clone());
        tokio::spawn(async move {
            if let Err(error) = send_receipt(&runtime, &languages, &deliveries, booking, to, utc_offset_minutes).await {
                tracing::warn!(booking_id = %booking, %error, "receipt not sent");
            }
        });
    }
}

/// Sends the receipt of `booking` if `to` is its rider, it has a receipt,
/// the rider has an e-mail address and no receipt went out before.
pub async fn send_receipt(
    runtime: &Runtime,
    languages: &LanguageCache,
    deliveries: &Deliveries,
    booking: BookingId,
    to: wayfare_engine::UserId,
    utc_offset_minutes: i32,
) -> anyhow::Result<bool> {
    let storage = runtime.storage();
    let booking = storage.booking(booking).await?;
    if booking.customer != to || !has_receipt(&booking) {
        return Ok(false);
    }
    let rider = storage.user(booking.customer).await?;
    let address = if rider.email.trim().is_empty() { booking.customer_email.trim() } else { rider.email.trim() };
    if address.is_empty() {
        tracing::info!(booking_id = %booking.id, "rider has no e-mail address: no receipt mailed");
        return Ok(false);
    }
    let now = runtime.now();
    if !storage.claim_receipt_mail(booking.id, address, now).await? {
        return Ok(false);
    }
    let settings = runtime.catalog().settings.clone();
    let texts = languages.for_user(storage.as_ref(), &rider).await;
    let receipt = receipt(&booking, &settings)?;
    let doc = receipt_doc(&receipt, &texts, utc_offset_minutes);
    // Shaping and subsetting take milliseconds: off the async threads.
    let (page, file) = tokio::task::spawn_blocking(move || (html::render(&doc), pdf::render(&doc))).await?;
    let message = Outgoing {
        channel: Channel::Email,
        to: address.to_string(),
        subject: texts.text("receipt_mail_subject").replace("{number}", &receipt.number),
        body: texts.text("receipt_mail_body").replace("{number}", &receipt.number),
        code: String::new(),
        html: Some(page),
        attachments: vec![Attachment {
            filename: format!("receipt-{}.pdf", receipt.number),
            content_type: "application/pdf".into(),
            data: file,
        }],
    };
    if let Err(error) = deliveries.send(&message).await {
        storage.release_receipt_mail(booking.id).await?;
        return Err(error.into());
    }
    tracing::info!(booking_id = %booking.id, "receipt mailed");
    Ok(true)
}
