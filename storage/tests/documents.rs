//! Drivers' documents (issue #33) on both backends (see `support/mod.rs`):
//! the current document per kind, reviews, the approval queue and the
//! expiry sweep's reads.

mod support;

use support::Fixture;
use wayfare_engine::{DocumentKind, DocumentStatus, DriverDocument, Millis, Role, User, UserId};
use wayfare_storage::{PageRequest, StorageError};

backend_suite!(
    a_new_upload_replaces_the_current_document_of_its_kind,
    a_review_changes_only_the_pending_documents,
    the_queue_holds_drivers_with_everything_uploaded_or_a_replacement_waiting,
    the_queue_pages_by_driver_and_scopes_by_fleet,
    documents_expiring_soon_are_reminded_once,
    expired_documents_of_online_drivers_are_found,
    documents_go_with_their_driver,
);

const NOW: Millis = 1_767_225_600_000; // 2026-01-01T00:00:00Z
const DAY: Millis = 86_400_000;

fn user(number: u128, role: Role, approved: bool, fleet: Option<UserId>) -> User {
    let mut user = User::new(UserId::from_u128(0x2000_0000 + number), role, NOW - number as i64 * 1_000);
    user.firstName = format!("First{number}");
    user.lastName = format!("Last{number}");
    user.email = format!("doc{number}@wayfare.test");
    user.referralId = format!("D{number:04}");
    user.approved = approved;
    user.fleetadmin = fleet;
    user
}

fn document(driver: UserId, kind: DocumentKind, status: DocumentStatus, expires_at: Option<Millis>) -> DriverDocument {
    DriverDocument {
        driver,
        kind,
        number: if kind == DocumentKind::Licence { "L-1".into() } else { String::new() },
        expires_at,
        front: format!("/api/v1/files/{}", kind.as_str()),
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

async fn upload_all(fixture: &Fixture, driver: UserId, status: DocumentStatus) {
    for kind in DocumentKind::ALL {
        let expires = kind.expires().then_some(NOW + 365 * DAY);
        fixture.save_driver_document(&document(driver, kind, status, expires)).await.unwrap();
    }
}

async fn a_new_upload_replaces_the_current_document_of_its_kind(fixture: Fixture) {
    let driver = user(1, Role::Driver, false, None);
    fixture.insert_user(&driver).await.unwrap();
    let first = document(driver.id, DocumentKind::Insurance, DocumentStatus::Approved, Some(NOW + DAY));
    fixture.save_driver_document(&first).await.unwrap();
    let mut second = document(driver.id, DocumentKind::Insurance, DocumentStatus::Pending, Some(NOW + 90 * DAY));
    second.front = "/api/v1/files/new".into();
    second.updated_at = NOW + 1;
    fixture.save_driver_document(&second).await.unwrap();
    let photo = document(driver.id, DocumentKind::Photo, DocumentStatus::Pending, None);
    fixture.save_driver_document(&photo).await.unwrap();
    assert_eq!(fixture.driver_documents(driver.id).await.unwrap(), vec![second, photo]);
    assert!(fixture.driver_documents(UserId::from_u128(404)).await.unwrap().is_empty());
}

async fn a_review_changes_only_the_pending_documents(fixture: Fixture) {
    let driver = user(2, Role::Driver, false, None);
    let admin = user(3, Role::Admin, true, None);
    fixture.insert_user(&driver).await.unwrap();
    fixture.insert_user(&admin).await.unwrap();
    let approved = document(driver.id, DocumentKind::Photo, DocumentStatus::Approved, None);
    fixture.save_driver_document(&approved).await.unwrap();
    fixture
        .save_driver_document(&document(driver.id, DocumentKind::Registration, DocumentStatus::Pending, None))
        .await
        .unwrap();
    let rejected = fixture
        .review_driver_documents(driver.id, DocumentStatus::Rejected, Some("blurred"), admin.id, NOW + 5)
        .await
        .unwrap();
    assert_eq!(rejected.len(), 1);
    assert_eq!(rejected[0].kind, DocumentKind::Registration);
    assert_eq!(
        (rejected[0].status, rejected[0].reason.as_deref(), rejected[0].reviewed_by, rejected[0].reviewed_at),
        (DocumentStatus::Rejected, Some("blurred"), Some(admin.id), Some(NOW + 5))
    );
    let stored = fixture.driver_documents(driver.id).await.unwrap();
    assert_eq!(stored[0], approved, "the approved photo is untouched");
    assert_eq!(stored[1], rejected[0]);
    // Nothing is pending any more: a second review changes nothing.
    let again = fixture.review_driver_documents(driver.id, DocumentStatus::Approved, None, admin.id, NOW + 6).await;
    assert!(again.unwrap().is_empty());
}

async fn the_queue_holds_drivers_with_everything_uploaded_or_a_replacement_waiting(fixture: Fixture) {
    let required = DocumentKind::ALL;
    let complete = user(10, Role::Driver, false, None);
    let partial = user(11, Role::Driver, false, None);
    let replacing = user(12, Role::Driver, true, None);
    let settled = user(13, Role::Driver, true, None);
    let rejected = user(14, Role::Driver, false, None);
    for driver in [&complete, &partial, &replacing, &settled, &rejected] {
        fixture.insert_user(driver).await.unwrap();
    }
    upload_all(&fixture, complete.id, DocumentStatus::Pending).await;
    fixture
        .save_driver_document(&document(partial.id, DocumentKind::Photo, DocumentStatus::Pending, None))
        .await
        .unwrap();
    upload_all(&fixture, replacing.id, DocumentStatus::Approved).await;
    fixture
        .save_driver_document(&document(
            replacing.id,
            DocumentKind::Insurance,
            DocumentStatus::Pending,
            Some(NOW + DAY),
        ))
        .await
        .unwrap();
    upload_all(&fixture, settled.id, DocumentStatus::Approved).await;
    upload_all(&fixture, rejected.id, DocumentStatus::Pending).await;
    fixture.review_driver_documents(rejected.id, DocumentStatus::Rejected, Some("no"), settled.id, NOW).await.unwrap();
    // The rejected driver replaces one document: the others are still rejected.
    fixture
        .save_driver_document(&document(rejected.id, DocumentKind::Photo, DocumentStatus::Pending, None))
        .await
        .unwrap();
    let page = fixture.driver_applications(None, &required, &PageRequest::first(50)).await.unwrap();
    let mut expected = vec![complete.id, replacing.id];
    expected.sort();
    assert_eq!(page.items.iter().map(|user| user.id).collect::<Vec<_>>(), expected);
    assert_eq!(fixture.count_driver_applications(None, &required).await.unwrap(), 2);
    // Without insurance required, the partial driver still lacks the rest.
    let fewer = [DocumentKind::Photo];
    let page = fixture.driver_applications(None, &fewer, &PageRequest::first(50)).await.unwrap();
    let mut expected = vec![complete.id, partial.id, replacing.id, rejected.id];
    expected.sort();
    assert_eq!(page.items.iter().map(|user| user.id).collect::<Vec<_>>(), expected);
}

async fn the_queue_pages_by_driver_and_scopes_by_fleet(fixture: Fixture) {
    let fleet = user(20, Role::Fleetadmin, true, None);
    fixture.insert_user(&fleet).await.unwrap();
    let mut ours = Vec::new();
    for number in 21..26 {
        let in_fleet = number % 2 == 1;
        let driver = user(number, Role::Driver, false, in_fleet.then_some(fleet.id));
        fixture.insert_user(&driver).await.unwrap();
        upload_all(&fixture, driver.id, DocumentStatus::Pending).await;
        if in_fleet {
            ours.push(driver.id);
        }
    }
    let required = DocumentKind::ALL;
    let mut seen = Vec::new();
    let mut page = PageRequest::first(2);
    loop {
        let found = fixture.driver_applications(None, &required, &page).await.unwrap();
        assert!(found.items.len() <= 2);
        seen.extend(found.items.iter().map(|user| user.id));
        match found.next {
            Some(next) => page = PageRequest { limit: 2, after: Some(next) },
            None => break,
        }
    }
    assert_eq!(seen.len(), 5);
    assert!(seen.windows(2).all(|pair| pair[0] < pair[1]), "in driver order, each once");
    let fleet_page = fixture.driver_applications(Some(fleet.id), &required, &PageRequest::first(50)).await.unwrap();
    assert_eq!(fleet_page.items.iter().map(|user| user.id).collect::<Vec<_>>(), ours);
    assert_eq!(fixture.count_driver_applications(Some(fleet.id), &required).await.unwrap(), 3);
    let bad = PageRequest { limit: 2, after: Some("not-a-cursor".into()) };
    assert!(matches!(fixture.driver_applications(None, &required, &bad).await, Err(StorageError::Invalid(_))));
}

async fn documents_expiring_soon_are_reminded_once(fixture: Fixture) {
    let driver = user(30, Role::Driver, true, None);
    fixture.insert_user(&driver).await.unwrap();
    let soon = document(driver.id, DocumentKind::Insurance, DocumentStatus::Approved, Some(NOW + 10 * DAY));
    let later = document(driver.id, DocumentKind::Licence, DocumentStatus::Approved, Some(NOW + 60 * DAY));
    fixture.save_driver_document(&soon).await.unwrap();
    fixture.save_driver_document(&later).await.unwrap();
    let due = fixture.documents_to_remind(NOW + 30 * DAY, 10).await.unwrap();
    assert_eq!(due, vec![soon.clone()]);
    assert!(fixture.mark_document_reminded(driver.id, DocumentKind::Insurance, NOW).await.unwrap());
    assert!(!fixture.mark_document_reminded(driver.id, DocumentKind::Insurance, NOW + 1).await.unwrap());
    assert!(fixture.documents_to_remind(NOW + 30 * DAY, 10).await.unwrap().is_empty());
    let stored = fixture.driver_documents(driver.id).await.unwrap();
    let insurance = stored.iter().find(|document| document.kind == DocumentKind::Insurance).unwrap();
    assert_eq!(insurance.reminded_at, Some(NOW));
    // A new upload starts its own reminder.
    fixture.save_driver_document(&soon).await.unwrap();
    assert_eq!(fixture.documents_to_remind(NOW + 30 * DAY, 10).await.unwrap().len(), 1);
}

async fn expired_documents_of_online_drivers_are_found(fixture: Fixture) {
    let online = user(40, Role::Driver, true, None);
    let offline = user(41, Role::Driver, true, None);
    for driver in [&online, &offline] {
        fixture.insert_user(driver).await.unwrap();
        upload_all(&fixture, driver.id, DocumentStatus::Approved).await;
        let expired = document(driver.id, DocumentKind::Insurance, DocumentStatus::Approved, Some(NOW - DAY));
        fixture.save_driver_document(&expired).await.unwrap();
    }
    fixture.set_driver_active(online.id, true, NOW).await.unwrap();
    let found = fixture.online_expired_documents(NOW).await.unwrap();
    assert_eq!(
        found.iter().map(|document| (document.driver, document.kind)).collect::<Vec<_>>(),
        vec![(online.id, DocumentKind::Insurance)]
    );
    assert!(fixture.online_expired_documents(NOW - 2 * DAY).await.unwrap().is_empty());
}

async fn documents_go_with_their_driver(fixture: Fixture) {
    let driver = user(50, Role::Driver, false, None);
    fixture.insert_user(&driver).await.unwrap();
    upload_all(&fixture, driver.id, DocumentStatus::Pending).await;
    fixture.delete_user(driver.id).await.unwrap();
    assert!(fixture.driver_documents(driver.id).await.unwrap().is_empty());
    assert_eq!(fixture.count_driver_applications(None, &DocumentKind::ALL).await.unwrap(), 0);
}
