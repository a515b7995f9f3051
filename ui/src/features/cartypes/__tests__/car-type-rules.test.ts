import { describe, expect, it } from 'vitest';
import { carTypeBody, carTypeForm, carTypeProblems } from '../lib/car-type-rules';

const valid = { ...carTypeForm(null), name: 'Van', base_fare: '3', rate_per_unit_distance: '1.2', rate_per_hour: '10', min_fare: '5' };

describe('the car type form', () => {
  it('needs a name and amounts of zero or more, a percentage fee at most 100', () => {
    expect(carTypeProblems(valid)).toEqual({});
    expect(carTypeProblems({ ...valid, name: ' ', min_fare: '-1' })).toEqual({ name: 'cartypes.name_required', min_fare: 'cartypes.amount_rule' });
    expect(carTypeProblems({ ...valid, convenience_fee_type: 'percentage', convenience_fees: '120' })).toEqual({ convenience_fees: 'catalogue.percentage_max' });
  });

  it('refuses two slabs at the same minute and a later slab cheaper than an earlier one', () => {
    const slabs = (...pairs: [string, string][]) => ({ ...valid, cancelSlab: pairs.map(([minsDelayed, amount]) => ({ minsDelayed, amount })) });
    expect(carTypeProblems(slabs(['5', '5'], ['2', '2']))).toEqual({});
    expect(carTypeProblems(slabs(['2', '2'], ['2', '3']))).toEqual({ cancelSlab: 'cartypes.slab_order' });
    expect(carTypeProblems(slabs(['2', '4'], ['5', '3']))).toEqual({ cancelSlab: 'cartypes.slab_order' });
    expect(carTypeProblems(slabs(['1.5', '2']))).toEqual({ 'cancelSlab.0': 'cartypes.slab_rule' });
  });

  it('sends slabs sorted, and parcel types and options only on a delivery platform', () => {
    const form = { ...valid, cancelSlab: [{ minsDelayed: '5', amount: '5' }, { minsDelayed: '2', amount: '2' }], parcelTypes: [{ description: 'Box', amount: '2' }] };
    const body = carTypeBody(form, false);
    expect(body.cancelSlab).toEqual([{ minsDelayed: 2, amount: 2 }, { minsDelayed: 5, amount: 5 }]);
    expect(body).not.toHaveProperty('parcelTypes');
    expect(carTypeBody(form, true)).toMatchObject({ parcelTypes: [{ description: 'Box', amount: 2 }], options: [], optionRequired: false, base_fare: 3 });
    expect(body).not.toHaveProperty('optionRequired');
  });

  it('keeps whether a booking must choose an option, and refuses to require one when there is none', () => {
    expect(carTypeForm(null).optionRequired).toBe(false);
    const withOption = { ...valid, options: [{ description: 'Fragile', amount: '2' }], optionRequired: true };
    expect(carTypeProblems(withOption)).toEqual({});
    expect(carTypeBody(withOption, true).optionRequired).toBe(true);
    expect(carTypeProblems({ ...withOption, options: [] })).toEqual({ options: 'cartypes.option_required_empty' });
  });
});
