// A promo's form (spec §2 "/promos", §5): what the server accepts, checked
// before sending, and the body it takes.
import { z } from 'zod';
import type { Promo } from '@/types/api';

/** A number the server takes: zero or more. */
const amount = () =>
  z
    .string()
    .trim()
    .refine((text) => text !== '' && Number.isFinite(Number(text)) && Number(text) >= 0, 'invalid_input');

export const promoSchema = z
  .object({
    promo_name: z.string().trim().regex(/^[A-Za-z0-9_-]{1,32}$/, 'catalogue.promo_name_rule'),
    promo_description: z.string().trim().max(200, 'invalid_input'),
    promo_discount_type: z.enum(['flat', 'percentage']),
    promo_discount_value: amount(),
    max_promo_discount_value: amount(),
    min_order: amount(),
    promo_validity: z.string().min(1, 'catalogue.validity_required'),
    promo_usage_limit: z.string().trim().regex(/^\d{1,9}$/, 'invalid_input'),
  })
  .superRefine((values, context) => {
    const value = Number(values.promo_discount_value);
    if (!(value > 0)) context.addIssue({ code: 'custom', path: ['promo_discount_value'], message: 'catalogue.discount_above_zero' });
    if (values.promo_discount_type === 'percentage' && value > 100) context.addIssue({ code: 'custom', path: ['promo_discount_value'], message: 'catalogue.percentage_max' });
  });

export type PromoValues = z.infer<typeof promoSchema>;

const pad = (value: number) => String(value).padStart(2, '0');

/** A date input's value (local day) from an instant. */
export function dateValue(at: number) {
  const date = new Date(at);
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

export function promoValues(promo: Promo | null, now: number): PromoValues {
  return {
    promo_name: promo?.promo_name ?? '',
    promo_description: promo?.promo_description ?? '',
    promo_discount_type: promo?.promo_discount_type ?? 'percentage',
    promo_discount_value: promo ? String(promo.promo_discount_value) : '',
    max_promo_discount_value: promo ? String(promo.max_promo_discount_value) : '0',
    min_order: promo ? String(promo.min_order) : '0',
    promo_validity: dateValue(promo?.promo_validity ?? now + 30 * 86_400_000),
    promo_usage_limit: promo ? String(promo.promo_usage_limit) : '0',
  };
}

/** The end of the chosen local day: a promo is valid through it. */
export function validityOf(day: string) {
  const [year, month, date] = day.split('-').map(Number);
  return new Date(year, month - 1, date, 23, 59, 59, 999).getTime();
}

export function promoBody(values: PromoValues) {
  return {
    promo_name: values.promo_name.trim().toUpperCase(),
    promo_description: values.promo_description.trim(),
    promo_discount_type: values.promo_discount_type,
    promo_discount_value: Number(values.promo_discount_value),
    max_promo_discount_value: Number(values.max_promo_discount_value),
    min_order: Number(values.min_order),
    promo_validity: validityOf(values.promo_validity),
    promo_usage_limit: Number(values.promo_usage_limit),
  };
}
