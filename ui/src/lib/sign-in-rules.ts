// Spec §5 Login and §9: the checks of a sign-in contact and code, and the
// contact as the server expects it. Shared by the sign-in form (features/auth)
// and the driver's sign-up (features/driver-signup), so it lives here.

/** Spec §9: verification code length. */
export const CODE_LENGTH = 6;
/** Spec §9: a phone number has more than 6 digits once spaces are removed. */
export const MIN_PHONE_LENGTH = 7;

// Spec §5: letters/digits (with . _ % + -), @, a domain, a dot and letters.
const EMAIL_PATTERN = /^[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}$/;

/** A contact made only of digits (and spaces, dashes, brackets and a leading +) is a phone number. */
export function isNumericContact(contact: string) {
  return /^\+?[\d\s\-()]+$/.test(contact.trim());
}

export function contactError(contact: string): string | null {
  const text = contact.trim();
  if (text === '') return 'contact_input_error';
  if (isNumericContact(text)) {
    const digits = text.replace(/\s/g, '').replace(/[^\d]/g, '');
    return digits.length >= MIN_PHONE_LENGTH ? null : 'mobile_no_blank_error';
  }
  return EMAIL_PATTERN.test(text) ? null : 'proper_email';
}

export function codeError(code: string): string | null {
  return code.trim().length === CODE_LENGTH ? null : 'otp_validate_error';
}

/** The contact as the server expects it: a phone number with the country's prefix when it has none. */
export function normaliseContact(contact: string, dialCode?: string) {
  const text = contact.trim();
  if (!isNumericContact(text)) return text.toLowerCase();
  const compact = text.replace(/[\s\-()]/g, '');
  if (compact.startsWith('+') || !dialCode) return compact;
  return `${dialCode}${compact.replace(/^0+/, '')}`;
}
