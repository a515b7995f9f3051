//! Codes made from an injected RNG, so tests and the simulator are repeatable
//! and the server can pass a cryptographic one.

use rand::Rng;

/// Spec §9: the booking otp is a 5-digit number from 10000 to 99999.
pub fn booking_otp<R: Rng + ?Sized>(rng: &mut R) -> u32 {
    rng.random_range(10_000..=99_999)
}

/// Spec §3: a booking reference is 6 random capital letters.
pub fn booking_reference<R: Rng + ?Sized>(rng: &mut R) -> String {
    capital_letters(rng, 6)
}

/// Spec §3: a referral code is 5 random capital letters.
pub fn referral_code<R: Rng + ?Sized>(rng: &mut R) -> String {
    capital_letters(rng, 5)
}

/// Sign-in codes are 6 digits (spec §9), leading zeros kept.
pub fn sign_in_code<R: Rng + ?Sized>(rng: &mut R) -> String {
    format!("{:06}", rng.random_range(0..1_000_000u32))
}

fn capital_letters<R: Rng + ?Sized>(rng: &mut R, length: usize) -> String {
    (0..length).map(|_| char::from(b'A' + rng.random_range(0..26u8))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand::rngs::StdRng;

    #[test]
    fn booking_otp_is_always_five_digits() {
        // spec §9: 10000 to 99999
        let mut rng = StdRng::seed_from_u64(7);
        for _ in 0..10_000 {
            let otp = booking_otp(&mut rng);
            assert!((10_000..=99_999).contains(&otp), "{otp}");
        }
    }

    #[test]
    fn reference_is_six_capitals_and_referral_five() {
        // spec §3, §9
        let mut rng = StdRng::seed_from_u64(1);
        for _ in 0..1_000 {
            let reference = booking_reference(&mut rng);
            assert_eq!(reference.len(), 6);
            assert!(reference.chars().all(|letter| letter.is_ascii_uppercase()));
            let referral = referral_code(&mut rng);
            assert_eq!(referral.len(), 5);
            assert!(referral.chars().all(|letter| letter.is_ascii_uppercase()));
        }
    }

    #[test]
    fn every_capital_letter_can_appear() {
        let mut rng = StdRng::seed_from_u64(3);
        let letters: std::collections::BTreeSet<char> =
            (0..2_000).flat_map(|_| booking_reference(&mut rng).chars().collect::<Vec<_>>()).collect();
        assert_eq!(letters.len(), 26);
    }

    #[test]
    fn sign_in_code_has_six_digits_with_leading_zeros() {
        let mut rng = StdRng::seed_from_u64(9);
        for _ in 0..5_000 {
            let code = sign_in_code(&mut rng);
            assert_eq!(code.len(), 6);
            assert!(code.chars().all(|digit| digit.is_ascii_digit()));
        }
    }

    #[test]
    fn the_same_seed_gives_the_same_codes() {
        let first = booking_reference(&mut StdRng::seed_from_u64(42));
        let second = booking_reference(&mut StdRng::seed_from_u64(42));
        assert_eq!(first, second);
    }
}
