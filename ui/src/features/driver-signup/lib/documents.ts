// What the sign-up screens need to know about documents: which fields each
// kind has, the form's own checks (each a translation key, as the server's
// refusals are), and when a document needs the driver's attention.
import type { Application, DocumentKind, DriverDocument } from '@/types/api';

export const ALL_KINDS: DocumentKind[] = ['licence', 'registration', 'insurance', 'photo'];
/** Thirty days, as the server's reminder. */
export const EXPIRY_WARNING_MS = 30 * 24 * 3_600_000;

export const hasNumber = (kind: DocumentKind) => kind === 'licence';
export const hasBack = (kind: DocumentKind) => kind === 'licence';
export const expires = (kind: DocumentKind) => kind === 'licence' || kind === 'insurance';

/** The required kinds of the settings, in their order; all when unset. */
export function requiredKinds(setting: DocumentKind[] | undefined): DocumentKind[] {
  return setting ? ALL_KINDS.filter((kind) => setting.includes(kind)) : ALL_KINDS;
}

export interface DocumentDraft {
  front: File | null;
  back: File | null;
  number: string;
  expiry: string;
}

export const emptyDraft = (): DocumentDraft => ({ front: null, back: null, number: '', expiry: '' });

/** The form's checks before sending, field → translation key. */
export function draftErrors(kind: DocumentKind, draft: DocumentDraft): Partial<Record<keyof DocumentDraft, string>> {
  const errors: Partial<Record<keyof DocumentDraft, string>> = {};
  if (!draft.front) errors.front = 'choose_image_first';
  if (hasNumber(kind) && draft.number.trim() === '') errors.number = 'document_number_missing';
  if (expires(kind) && !/^\d{4}-\d{2}-\d{2}$/.test(draft.expiry)) errors.expiry = 'document_expiry_invalid';
  return errors;
}

export type Attention = 'expired' | 'expiring' | 'rejected' | 'pending' | null;

/** What a document needs from the driver now. */
export function attentionOf(document: DriverDocument, now: number): Attention {
  if (document.expiresAt != null && document.expiresAt <= now) return 'expired';
  if (document.status === 'rejected') return 'rejected';
  if (document.status === 'pending') return 'pending';
  if (document.expiresAt != null && document.expiresAt <= now + EXPIRY_WARNING_MS) return 'expiring';
  return null;
}

/** The required documents of an approved driver that are expired or expire soon. */
export function documentsNeedingRenewal(application: Application, now: number): DriverDocument[] {
  return application.documents.filter((document) => {
    if (!application.required.includes(document.kind)) return false;
    const attention = attentionOf(document, now);
    return attention === 'expired' || attention === 'expiring' || attention === 'rejected';
  });
}

/** Required kinds with nothing on file (a driver approved without them). */
export function kindsNeverSent(application: Application): DocumentKind[] {
  return application.missing.filter((kind) => !application.documents.some((document) => document.kind === kind));
}

/** A day as `YYYY-MM-DD` in UTC (expiries are the end of that day, UTC). */
export function dayOf(ms: number) {
  return new Date(ms).toISOString().slice(0, 10);
}

/** The model years offered: this year and next back to 1950. */
export function modelYears(now: Date) {
  const years: string[] = [];
  for (let year = now.getUTCFullYear() + 1; year >= 1950; year -= 1) years.push(String(year));
  return years;
}
