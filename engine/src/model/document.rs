use super::{Millis, Role};
use crate::error::{DomainError, DomainResult, ErrorKey};
use crate::ids::UserId;
use serde::{Deserialize, Serialize};

/// A document a driver uploads when signing up (issue #33). Which kinds are
/// required is the setting `driverDocuments`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum DocumentKind {
    /// Driving licence: front and back images, number, expiry.
    Licence,
    /// Vehicle registration.
    Registration,
    /// Insurance, with its expiry.
    Insurance,
    /// Profile photo (also the user's `profile_image`).
    Photo,
}

impl DocumentKind {
    pub const ALL: [DocumentKind; 4] =
        [DocumentKind::Licence, DocumentKind::Registration, DocumentKind::Insurance, DocumentKind::Photo];

    pub fn as_str(self) -> &'static str {
        match self {
            DocumentKind::Licence => "licence",
            DocumentKind::Registration => "registration",
            DocumentKind::Insurance => "insurance",
            DocumentKind::Photo => "photo",
        }
    }

    pub fn parse(text: &str) -> Option<DocumentKind> {
        DocumentKind::ALL.into_iter().find(|kind| kind.as_str() == text)
    }

    /// Kinds whose validity ends: the expiry is required.
    pub fn expires(self) -> bool {
        matches!(self, DocumentKind::Licence | DocumentKind::Insurance)
    }

    /// Only the licence has a number and a back side.
    pub fn has_number(self) -> bool {
        self == DocumentKind::Licence
    }
}

/// Where a document is in review.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum DocumentStatus {
    Pending,
    Approved,
    Rejected,
}

impl DocumentStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            DocumentStatus::Pending => "pending",
            DocumentStatus::Approved => "approved",
            DocumentStatus::Rejected => "rejected",
        }
    }

    pub fn parse(text: &str) -> Option<DocumentStatus> {
        [DocumentStatus::Pending, DocumentStatus::Approved, DocumentStatus::Rejected]
            .into_iter()
            .find(|status| status.as_str() == text)
    }
}

/// A driver's current document of one kind (a new upload replaces it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct DriverDocument {
    pub driver: UserId,
    pub kind: DocumentKind,
    /// The licence number; empty for other kinds.
    #[serde(default)]
    pub number: String,
    /// When it stops being valid (licence, insurance).
    #[serde(default)]
    pub expires_at: Option<Millis>,
    /// The file URL of the image (`/api/v1/files/{id}`).
    pub front: String,
    /// The licence's back side.
    #[serde(default)]
    pub back: Option<String>,
    pub status: DocumentStatus,
    /// Why it was rejected; the driver is told.
    #[serde(default)]
    pub reason: Option<String>,
    #[serde(default)]
    pub reviewed_by: Option<UserId>,
    #[serde(default)]
    pub reviewed_at: Option<Millis>,
    /// When the expiry reminder went out (one per upload).
    #[serde(default)]
    pub reminded_at: Option<Millis>,
    pub created_at: Millis,
    pub updated_at: Millis,
}

/// How long before expiry the driver is reminded.
pub const EXPIRY_REMINDER_MS: Millis = 30 * 24 * 3_600_000;
/// Longest text of a rejection reason.
pub const MAX_REASON_CHARS: usize = 500;
const MAX_NUMBER_CHARS: usize = 40;
/// 2000-01-01T00:00:00Z.
const EARLIEST_EXPIRY: Millis = 946_684_800_000;

/// Where a driver's sign-up stands, as the driver and the panel see it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum ApplicationStatus {
    /// A required document is missing (or was rejected and not replaced).
    Incomplete,
    /// Everything is in and waits for review.
    Pending,
    Approved,
    Rejected,
}

/// The driver's application: its status, the reason of the last rejection,
/// the kinds required and what is missing.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Application {
    pub status: ApplicationStatus,
    #[serde(default)]
    pub reason: Option<String>,
    pub required: Vec<DocumentKind>,
    /// Required kinds with no usable document (none, rejected or expired).
    pub missing: Vec<DocumentKind>,
    pub documents: Vec<DriverDocument>,
}

fn find(documents: &[DriverDocument], kind: DocumentKind) -> Option<&DriverDocument> {
    documents.iter().find(|document| document.kind == kind)
}

fn expired(document: &DriverDocument, now: Millis) -> bool {
    document.expires_at.is_some_and(|at| at <= now)
}

/// A required kind the driver has no usable copy of: rejected, expired, or
/// (a driver who signed themself up) none.
pub fn missing_documents(
    documents: &[DriverDocument],
    required: &[DocumentKind],
    self_registered: bool,
    now: Millis,
) -> Vec<DocumentKind> {
    required
        .iter()
        .copied()
        .filter(|kind| match find(documents, *kind) {
            Some(document) => document.status == DocumentStatus::Rejected || expired(document, now),
            None => self_registered,
        })
        .collect()
}

/// The application of a driver (`approved` is the account's flag;
/// `self_registered` as for [`may_go_online`]).
pub fn application(
    approved: bool,
    self_registered: bool,
    documents: Vec<DriverDocument>,
    required: &[DocumentKind],
    now: Millis,
) -> Application {
    let missing = missing_documents(&documents, required, self_registered, now);
    let rejected = documents
        .iter()
        .filter(|document| document.status == DocumentStatus::Rejected)
        .max_by_key(|document| document.reviewed_at)
        .and_then(|document| document.reason.clone());
    let pending = documents.iter().any(|document| document.status == DocumentStatus::Pending);
    let status = if approved && missing.is_empty() && !pending {
        ApplicationStatus::Approved
    } else if rejected.is_some() && !pending {
        ApplicationStatus::Rejected
    } else if !missing.is_empty() {
        ApplicationStatus::Incomplete
    } else {
        ApplicationStatus::Pending
    };
    let reason = if status == ApplicationStatus::Rejected { rejected } else { None };
    Application { status, reason, required: required.to_vec(), missing, documents }
}

/// Whether a driver may go online as far as approval and documents go: an
/// unapproved account waits (`require_approval`); a required document that
/// expired is `document_expired`; one rejected or waiting for review is
/// `documents_missing`, and so is one never uploaded by a driver who signed
/// themself up (`self_registered`). A driver an admin added was vouched for
/// by that admin: only the documents they have on record are checked.
pub fn may_go_online(
    approved: bool,
    self_registered: bool,
    documents: &[DriverDocument],
    required: &[DocumentKind],
    now: Millis,
) -> DomainResult<()> {
    if !approved {
        return Err(ErrorKey::RequireApproval.into());
    }
    for kind in required {
        match find(documents, *kind) {
            Some(document) if expired(document, now) => {
                return Err(DomainError::on_field(ErrorKey::DocumentExpired, kind.as_str()));
            }
            Some(document) if document.status == DocumentStatus::Approved => {}
            None if !self_registered => {}
            _ => return Err(DomainError::on_field(ErrorKey::DocumentsMissing, kind.as_str())),
        }
    }
    Ok(())
}

/// Whether the expiry reminder is due: expiring within 30 days, none sent yet.
pub fn reminder_due(document: &DriverDocument, now: Millis) -> bool {
    document.reminded_at.is_none() && document.expires_at.is_some_and(|at| at <= now + EXPIRY_REMINDER_MS)
}

/// The checked fields of an upload.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DocumentFields {
    pub number: String,
    pub expires_at: Option<Millis>,
}

/// A licence needs its number (`document_number_missing`); a licence or an
/// insurance its expiry (`document_expiry_invalid`). An expiry already past
/// is kept as it is: the document counts as expired at once. Other kinds
/// ignore both.
pub fn validate_document_fields(
    kind: DocumentKind,
    number: Option<&str>,
    expiry: Option<Millis>,
) -> DomainResult<DocumentFields> {
    let number = if kind.has_number() {
        let number = number.map(str::trim).unwrap_or_default();
        if number.is_empty() || number.chars().count() > MAX_NUMBER_CHARS || number.chars().any(char::is_control) {
            return Err(DomainError::on_field(ErrorKey::DocumentNumberMissing, "number"));
        }
        number.to_string()
    } else {
        String::new()
    };
    let expires_at = if kind.expires() {
        // Before 2000 is a typing mistake, not an old document.
        match expiry {
            Some(at) if at >= EARLIEST_EXPIRY => Some(at),
            _ => return Err(DomainError::on_field(ErrorKey::DocumentExpiryInvalid, "expiry")),
        }
    } else {
        None
    };
    Ok(DocumentFields { number, expires_at })
}

/// A rejection needs a reason the driver can read.
pub fn validate_reason(reason: Option<&str>) -> DomainResult<String> {
    let reason = reason.map(str::trim).unwrap_or_default();
    if reason.is_empty() || reason.chars().count() > MAX_REASON_CHARS {
        return Err(DomainError::on_field(ErrorKey::ReasonRequired, "reason"));
    }
    Ok(reason.to_string())
}

/// The kinds of the setting, each once, in the setting's order.
pub fn required_kinds(setting: &[DocumentKind]) -> Vec<DocumentKind> {
    let mut kinds = Vec::new();
    for kind in setting {
        if !kinds.contains(kind) {
            kinds.push(*kind);
        }
    }
    kinds
}

/// Only drivers have applications.
pub fn is_applicant_role(role: Role) -> bool {
    role == Role::Driver
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: Millis = 1_800_000_000_000;
    const DAY: Millis = 24 * 3_600_000;

    fn document(kind: DocumentKind, status: DocumentStatus, expires_at: Option<Millis>) -> DriverDocument {
        DriverDocument {
            driver: UserId::from_u128(1),
            kind,
            number: String::new(),
            expires_at,
            front: "/api/v1/files/x".into(),
            back: None,
            status,
            reason: None,
            reviewed_by: None,
            reviewed_at: None,
            reminded_at: None,
            created_at: NOW,
            updated_at: NOW,
        }
    }

    fn all_approved() -> Vec<DriverDocument> {
        vec![
            document(DocumentKind::Licence, DocumentStatus::Approved, Some(NOW + 400 * DAY)),
            document(DocumentKind::Registration, DocumentStatus::Approved, None),
            document(DocumentKind::Insurance, DocumentStatus::Approved, Some(NOW + 400 * DAY)),
            document(DocumentKind::Photo, DocumentStatus::Approved, None),
        ]
    }

    #[test]
    fn an_approved_driver_with_every_document_may_go_online() {
        assert_eq!(may_go_online(true, true, &all_approved(), &DocumentKind::ALL, NOW), Ok(()));
    }

    #[test]
    fn a_pending_driver_waits_for_approval_before_anything_else() {
        let refusal = may_go_online(false, true, &[], &DocumentKind::ALL, NOW).unwrap_err();
        assert_eq!(refusal.key, ErrorKey::RequireApproval);
    }

    #[test]
    fn an_expired_insurance_blocks_and_a_pending_replacement_still_blocks() {
        let mut documents = all_approved();
        documents[2].expires_at = Some(NOW - 1);
        let refusal = may_go_online(true, true, &documents, &DocumentKind::ALL, NOW).unwrap_err();
        assert_eq!((refusal.key, refusal.field), (ErrorKey::DocumentExpired, Some("insurance")));
        documents[2] = document(DocumentKind::Insurance, DocumentStatus::Pending, Some(NOW + DAY));
        let refusal = may_go_online(true, true, &documents, &DocumentKind::ALL, NOW).unwrap_err();
        assert_eq!((refusal.key, refusal.field), (ErrorKey::DocumentsMissing, Some("insurance")));
    }

    #[test]
    fn a_kind_not_required_is_not_needed() {
        let documents: Vec<_> =
            all_approved().into_iter().filter(|document| document.kind != DocumentKind::Insurance).collect();
        let required = [DocumentKind::Licence, DocumentKind::Registration, DocumentKind::Photo];
        assert_eq!(may_go_online(true, true, &documents, &required, NOW), Ok(()));
        assert!(may_go_online(true, true, &documents, &DocumentKind::ALL, NOW).is_err());
    }

    #[test]
    fn a_driver_an_admin_added_needs_only_the_documents_on_record_to_be_valid() {
        assert_eq!(may_go_online(true, false, &[], &DocumentKind::ALL, NOW), Ok(()));
        let expired = [document(DocumentKind::Insurance, DocumentStatus::Approved, Some(NOW - 1))];
        let refusal = may_go_online(true, false, &expired, &DocumentKind::ALL, NOW).unwrap_err();
        assert_eq!(refusal.key, ErrorKey::DocumentExpired);
    }

    #[test]
    fn the_application_status_follows_the_documents() {
        let required = DocumentKind::ALL;
        assert_eq!(application(false, true, Vec::new(), &required, NOW).status, ApplicationStatus::Incomplete);
        let mut pending = all_approved();
        for document in &mut pending {
            document.status = DocumentStatus::Pending;
        }
        assert_eq!(application(false, true, pending.clone(), &required, NOW).status, ApplicationStatus::Pending);
        let mut rejected = pending;
        rejected[0].status = DocumentStatus::Rejected;
        rejected[0].reason = Some("blurred".into());
        rejected[0].reviewed_at = Some(NOW);
        for document in &mut rejected[1..] {
            document.status = DocumentStatus::Approved;
        }
        let told = application(false, true, rejected, &required, NOW);
        assert_eq!((told.status, told.reason.as_deref()), (ApplicationStatus::Rejected, Some("blurred")));
        assert_eq!(told.missing, vec![DocumentKind::Licence]);
        assert_eq!(application(true, true, all_approved(), &required, NOW).status, ApplicationStatus::Approved);
        assert_eq!(application(true, false, Vec::new(), &required, NOW).status, ApplicationStatus::Approved);
    }

    #[test]
    fn one_reminder_within_thirty_days_of_expiry() {
        let mut soon = document(DocumentKind::Insurance, DocumentStatus::Approved, Some(NOW + 29 * DAY));
        assert!(reminder_due(&soon, NOW));
        soon.reminded_at = Some(NOW);
        assert!(!reminder_due(&soon, NOW));
        let later = document(DocumentKind::Insurance, DocumentStatus::Approved, Some(NOW + 31 * DAY));
        assert!(!reminder_due(&later, NOW));
    }

    #[test]
    fn upload_fields_are_checked_by_kind() {
        let refusal = validate_document_fields(DocumentKind::Licence, Some(" "), Some(NOW + DAY)).unwrap_err();
        assert_eq!(refusal.key, ErrorKey::DocumentNumberMissing);
        let refusal = validate_document_fields(DocumentKind::Insurance, None, None).unwrap_err();
        assert_eq!(refusal.key, ErrorKey::DocumentExpiryInvalid);
        let past = validate_document_fields(DocumentKind::Insurance, None, Some(NOW - DAY)).unwrap();
        assert_eq!(past.expires_at, Some(NOW - DAY));
        let photo = validate_document_fields(DocumentKind::Photo, Some("x"), None).unwrap();
        assert_eq!(photo, DocumentFields { number: String::new(), expires_at: None });
        assert_eq!(validate_reason(Some("  ")).unwrap_err().key, ErrorKey::ReasonRequired);
    }
}
