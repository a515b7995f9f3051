//! What is shown: the fare split riders do not see, and contacts masked in
//! demo mode.

use crate::model::Role;

/// Riders do not see the driver's share or the convenience fee (spec §2 "Bookings").
pub fn can_see_fare_split(role: Role) -> bool {
    role != Role::Rider
}

/// Hides a contact in demo mode (spec §6). An e-mail keeps the first and last
/// characters of its local part and the domain (`j***n@example.com`; a local
/// part of one or two characters keeps only the first, so nothing is shown
/// whole). Anything else is treated as a phone and keeps its last 2 digits
/// (`***67`). Blank stays blank; too little to keep becomes `***`.
pub fn mask_contact(text: &str) -> String {
    let text = text.trim();
    if text.is_empty() {
        return String::new();
    }
    if let Some((local, domain)) = text.rsplit_once('@') {
        let characters: Vec<char> = local.chars().collect();
        return match characters.as_slice() {
            [] => format!("***@{domain}"),
            [first] | [first, _] => format!("{first}***@{domain}"),
            [first, .., last] => format!("{first}***{last}@{domain}"),
        };
    }
    let digits: Vec<char> = text.chars().filter(char::is_ascii_digit).collect();
    if digits.len() <= 2 {
        return "***".to_string();
    }
    let kept: String = digits[digits.len() - 2..].iter().collect();
    format!("***{kept}")
}
