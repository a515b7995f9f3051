// A car type's form (spec §2 "Car types", §3 CarType, §5): rates, the
// convenience fee, parcel types and options (delivery), and the cancellation
// slabs, checked as the server checks them before sending.
import type { CarType, PricedChoice } from '@/types/api';

export interface Slab {
  minsDelayed: string;
  amount: string;
}

export interface Choice {
  description: string;
  amount: string;
}

export interface CarTypeForm {
  name: string;
  base_fare: string;
  rate_per_unit_distance: string;
  rate_per_hour: string;
  min_fare: string;
  convenience_fees: string;
  convenience_fee_type: 'flat' | 'percentage';
  extra_info: string;
  parcelTypes: Choice[];
  options: Choice[];
  /** Delivery: a booking must choose one of the options. */
  optionRequired: boolean;
  cancelSlab: Slab[];
}

export const RATE_FIELDS = ['base_fare', 'rate_per_unit_distance', 'rate_per_hour', 'min_fare', 'convenience_fees'] as const;

const choices = (list: PricedChoice[] | undefined) => (list ?? []).map((choice) => ({ description: choice.description, amount: String(choice.amount) }));

export function carTypeForm(car: CarType | null): CarTypeForm {
  return {
    name: car?.name ?? '',
    base_fare: car ? String(car.base_fare) : '',
    rate_per_unit_distance: car ? String(car.rate_per_unit_distance) : '',
    rate_per_hour: car ? String(car.rate_per_hour) : '',
    min_fare: car ? String(car.min_fare) : '',
    convenience_fees: car ? String(car.convenience_fees) : '0',
    convenience_fee_type: car?.convenience_fee_type ?? 'flat',
    extra_info: car?.extra_info ?? '',
    parcelTypes: choices(car?.parcelTypes),
    options: choices(car?.options),
    optionRequired: car?.optionRequired ?? false,
    cancelSlab: (car?.cancelSlab ?? []).map((slab) => ({ minsDelayed: String(slab.minsDelayed), amount: String(slab.amount) })),
  };
}

const amount = (text: string) => (text.trim() === '' ? NaN : Number(text.trim()));

/** Field → translation key of what is wrong; empty when the form may be sent. */
export function carTypeProblems(form: CarTypeForm): Record<string, string> {
  const problems: Record<string, string> = {};
  if (!form.name.trim()) problems.name = 'cartypes.name_required';
  for (const field of RATE_FIELDS) {
    const value = amount(form[field]);
    if (!Number.isFinite(value) || value < 0) problems[field] = 'cartypes.amount_rule';
  }
  if (form.convenience_fee_type === 'percentage' && amount(form.convenience_fees) > 100) problems.convenience_fees = 'catalogue.percentage_max';
  form.parcelTypes.forEach((choice, index) => {
    if (!choice.description.trim() || !(amount(choice.amount) >= 0)) problems[`parcelTypes.${index}`] = 'cartypes.choice_rule';
  });
  form.options.forEach((choice, index) => {
    if (!choice.description.trim() || !(amount(choice.amount) >= 0)) problems[`options.${index}`] = 'cartypes.choice_rule';
  });
  // Requiring a choice among no options would refuse every booking of the type.
  if (form.optionRequired && form.options.length === 0) problems.options = 'cartypes.option_required_empty';
  // Spec §3: slabs sorted by minute, one per minute, never cheaper later.
  const slabs = form.cancelSlab.map((slab) => ({ minutes: amount(slab.minsDelayed), fee: amount(slab.amount) }));
  slabs.forEach((slab, index) => {
    if (!Number.isInteger(slab.minutes) || slab.minutes < 0 || !(slab.fee >= 0)) problems[`cancelSlab.${index}`] = 'cartypes.slab_rule';
  });
  const sorted = [...slabs].sort((a, b) => a.minutes - b.minutes);
  for (let index = 1; index < sorted.length; index++) {
    if (sorted[index].minutes === sorted[index - 1].minutes || sorted[index].fee < sorted[index - 1].fee) problems.cancelSlab = 'cartypes.slab_order';
  }
  return problems;
}

export function carTypeBody(form: CarTypeForm, delivery: boolean) {
  const body: Record<string, unknown> = {
    name: form.name.trim(),
    convenience_fee_type: form.convenience_fee_type,
    extra_info: form.extra_info.trim(),
    cancelSlab: form.cancelSlab.map((slab) => ({ minsDelayed: Number(slab.minsDelayed), amount: Number(slab.amount) })).sort((a, b) => a.minsDelayed - b.minsDelayed),
  };
  for (const field of RATE_FIELDS) body[field] = Number(form[field]);
  if (delivery) {
    body.parcelTypes = form.parcelTypes.map((choice) => ({ description: choice.description.trim(), amount: Number(choice.amount) }));
    body.options = form.options.map((choice) => ({ description: choice.description.trim(), amount: Number(choice.amount) }));
    body.optionRequired = form.optionRequired;
  }
  return body;
}
