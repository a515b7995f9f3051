import { describe, expect, it } from 'vitest';
import { promoBody, promoSchema, promoValues, validityOf } from '../lib/promo-rules';

const base = { ...promoValues(null, new Date(2026, 10, 24).getTime()), promo_name: 'welcome10', promo_discount_value: '10' };
const issues = (values: typeof base) => (promoSchema.safeParse(values).error?.issues ?? []).map((issue) => `${String(issue.path[0])}:${issue.message}`);

describe('the promo form', () => {
  it('takes what the server takes: a code of letters, digits, - and _, a discount above 0, a percentage at most 100', () => {
    expect(issues(base)).toEqual([]);
    expect(issues({ ...base, promo_name: 'ten off' })).toEqual(['promo_name:catalogue.promo_name_rule']);
    expect(issues({ ...base, promo_discount_value: '0' })).toEqual(['promo_discount_value:catalogue.discount_above_zero']);
    expect(issues({ ...base, promo_discount_value: '150' })).toEqual(['promo_discount_value:catalogue.percentage_max']);
    expect(issues({ ...base, promo_discount_type: 'flat', promo_discount_value: '150' })).toEqual([]);
    expect(issues({ ...base, min_order: '-1' })).toEqual(['min_order:invalid_input']);
    expect(issues({ ...base, promo_usage_limit: '1.5' })).toEqual(['promo_usage_limit:invalid_input']);
  });

  it('sends the code in capitals, numbers as numbers, and the validity through the end of the chosen day', () => {
    const body = promoBody({ ...base, promo_validity: '2026-12-31', max_promo_discount_value: '5' });
    expect(body).toMatchObject({ promo_name: 'WELCOME10', promo_discount_type: 'percentage', promo_discount_value: 10, max_promo_discount_value: 5, min_order: 0, promo_usage_limit: 0 });
    expect(body.promo_validity).toBe(validityOf('2026-12-31'));
    expect(new Date(body.promo_validity).getHours()).toBe(23);
    expect(base.promo_validity).toBe('2026-12-24');
  });
});
