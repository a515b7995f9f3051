// Spec §5 Login: the checks made before a code is requested or verified, each
// failure a translation key.
import { z } from 'zod';
import { codeError, contactError } from '@/lib/sign-in-rules';

export function loginSchema(countryRequired: boolean) {
  return z
    .object({ country: z.string(), contact: z.string(), code: z.string(), codeSent: z.boolean() })
    .superRefine((values, context) => {
      if (countryRequired && values.country.trim() === '') {
        context.addIssue({ code: 'custom', path: ['country'], message: 'country_blank_error' });
        return;
      }
      const contact = contactError(values.contact);
      if (contact) {
        context.addIssue({ code: 'custom', path: ['contact'], message: contact });
        return;
      }
      if (values.codeSent) {
        const code = codeError(values.code);
        if (code) context.addIssue({ code: 'custom', path: ['code'], message: code });
      }
    });
}

export type LoginValues = z.infer<ReturnType<typeof loginSchema>>;
