// One way to show what the server refused: the translated text of its
// error code (spec §8 keys), on the form field the server named when the form
// has it, else above the form or as a toast.
import type { FieldValues, Path, UseFormSetError } from 'react-hook-form';
import { ApiError, isApiError } from '@/lib/api-client';

type Translate = (key: string, options?: Record<string, unknown>) => string;
type Exists = (key: string) => boolean;

/** The text for an error: our dictionary's for its code, else the server's
 * own message (already in the user's language), else a generic one. */
export function errorText(error: unknown, t: Translate, exists: Exists): string {
  if (isApiError(error)) {
    if (exists(error.code)) return t(error.code);
    if (error.message) return error.message;
  }
  return t('internal_error');
}

/**
 * Puts a server refusal on the form field it names. `fields` maps the
 * server's field names to the form's when they differ. True when a field
 * took it; otherwise the caller shows it another way (an alert or a toast).
 */
export function applyServerError<T extends FieldValues>(
  error: unknown,
  setError: UseFormSetError<T>,
  t: Translate,
  exists: Exists,
  formFields: readonly string[],
  fields: Partial<Record<string, Path<T>>> = {},
): boolean {
  if (!(error instanceof ApiError) || !error.field) return false;
  const target = fields[error.field] ?? (formFields.includes(error.field) ? (error.field as Path<T>) : undefined);
  if (!target) return false;
  setError(target, { type: 'server', message: errorText(error, t, exists) }, { shouldFocus: true });
  return true;
}
