//! The Storage files records point at (spec §7 "File storage"): a user's
//! `users/{uid}/profileImage` and `users/{uid}/license`, a car type's
//! `cartypes/{id}`, a booking's `bookings/{id}/pickup_image` and
//! `deliver_image`. Listed for each record whose field is set; the server
//! copies the ones it finds and points the field at the copy
//! ([`Mapped::set_file_urls`]). A field whose file is not copied keeps the
//! original's URL.

use super::types::{FileTarget, Mapped, StorageFile};
use crate::booking::ParcelImage;
use crate::ids::{BookingId, UserId};
use std::collections::HashMap;
use uuid::Uuid;

/// Lists the files the imported records point at.
pub(super) fn collect(mapped: &mut Mapped) {
    let mut keys: HashMap<Uuid, &str> = HashMap::new();
    for record in &mapped.records {
        if matches!(record.node.as_str(), "users" | "cartypes" | "bookings")
            && let Some(entity) = record.entity
        {
            keys.insert(entity, record.key.as_str());
        }
    }
    let mut files = Vec::new();
    for user in &mapped.users {
        let Some(key) = keys.get(&user.id.0) else { continue };
        if user.profile_image.is_some() {
            files.push(StorageFile {
                path: format!("users/{key}/profileImage"),
                target: FileTarget::ProfileImage(user.id),
            });
        }
        if user.licenseImage.is_some() {
            files.push(StorageFile { path: format!("users/{key}/license"), target: FileTarget::License(user.id) });
        }
    }
    for car_type in &mapped.car_types {
        let Some(key) = keys.get(&car_type.id.0) else { continue };
        if !car_type.image.is_empty() {
            files.push(StorageFile { path: format!("cartypes/{key}"), target: FileTarget::CarTypeImage(car_type.id) });
        }
    }
    for booking in &mapped.bookings {
        let Some(key) = keys.get(&booking.id.0) else { continue };
        for (slot, field) in
            [(ParcelImage::PickupImage, &booking.pickup_image), (ParcelImage::DeliverImage, &booking.deliver_image)]
        {
            if field.is_some() {
                files.push(StorageFile {
                    path: format!("bookings/{key}/{}", slot.as_str()),
                    target: FileTarget::ParcelPhoto(booking.id, slot),
                });
            }
        }
    }
    mapped.files = files;
}

impl Mapped {
    /// Points each target's field at its copied file's URL.
    pub fn set_file_urls(&mut self, urls: &[(FileTarget, String)]) {
        let users: HashMap<UserId, usize> =
            self.users.iter().enumerate().map(|(index, user)| (user.id, index)).collect();
        let bookings: HashMap<BookingId, usize> =
            self.bookings.iter().enumerate().map(|(index, booking)| (booking.id, index)).collect();
        for (target, url) in urls {
            let link = url.clone();
            let url = Some(url.clone());
            match target {
                FileTarget::ProfileImage(user) => {
                    if let Some(index) = users.get(user) {
                        self.users[*index].profile_image = url;
                    }
                }
                FileTarget::License(user) => {
                    if let Some(index) = users.get(user) {
                        self.users[*index].licenseImage = url;
                    }
                }
                FileTarget::CarTypeImage(id) => {
                    if let Some(car_type) = self.car_types.iter_mut().find(|car_type| car_type.id == *id) {
                        car_type.image = link;
                    }
                }
                FileTarget::ParcelPhoto(booking, slot) => {
                    if let Some(index) = bookings.get(booking) {
                        let booking = &mut self.bookings[*index];
                        match slot {
                            ParcelImage::PickupImage => booking.pickup_image = url,
                            ParcelImage::DeliverImage => booking.deliver_image = url,
                        }
                    }
                }
            }
        }
    }
}
