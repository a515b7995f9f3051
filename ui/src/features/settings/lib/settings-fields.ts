// The settings and app info forms (spec §2 "Settings form", §3 Settings, §5
// "Admin panel"): every field the server keeps, grouped as the spec groups
// them, each with a line of help and the bounds the server checks.

/** `multi`: several of `options`, kept as a list (edited as comma-joined text);
 * `choice`: one of a few `options`, all in view side by side. */
export type FieldKind = 'text' | 'number' | 'switch' | 'select' | 'multi' | 'choice';

export interface SettingsField {
  name: string;
  kind: FieldKind;
  /** Bounds the server checks, shown and checked first. */
  min?: number;
  max?: number;
  integer?: boolean;
  options?: string[];
  /** Translation key of the unit shown after the value: the label and the unit read as a sentence. */
  unit?: string;
  /** Used only while another field has one of these values: shown, but not editable, otherwise. */
  usedWhen?: { field: string; values: string[] };
}

export interface SettingsSection {
  /** Translation key of the heading; each field's label is `settings.field.<name>`, its help `settings.help.<name>`. */
  title: string;
  fields: SettingsField[];
  /** Shown only on the demo city (`demoCity` from GET /settings, i.e. `wayfare serve --demo`). */
  demoCityOnly?: boolean;
}

const toggle = (name: string): SettingsField => ({ name, kind: 'switch' });
const WAVES = { field: 'dispatchPolicy', values: ['waves'] };
const BATCH = { field: 'dispatchPolicy', values: ['batch'] };
const text = (name: string): SettingsField => ({ name, kind: 'text' });

export const SETTINGS_SECTIONS: SettingsSection[] = [
  // Issue #34: what the platform is, first and on its own. Demo mode
  // (`AllowCriticalEditsAdmin`) is deliberately absent: the server's
  // configuration sets it, and PATCH /settings refuses it.
  { title: 'settings.section.service', fields: [{ name: 'appcat', kind: 'choice', options: ['taxi', 'delivery'] }] },
  {
    title: 'settings.section.currency',
    fields: [text('code'), text('symbol'), toggle('swipe_symbol'), { name: 'decimal', kind: 'number', min: 0, max: 6, integer: true }],
  },
  {
    title: 'settings.section.security',
    fields: [
      toggle('otp_secure'),
      toggle('driver_approval'),
      // Issue #33: what a driver must upload, and have approved, to go online.
      { name: 'driverDocuments', kind: 'multi', options: ['licence', 'registration', 'insurance', 'photo'] },
      toggle('AllowCountrySelection'),
      text('country'),
      text('restrictCountry'),
      // Issue #37: each shows when the server also has the provider's credentials.
      toggle('GoogleLoginEnabled'),
      toggle('AppleLoginEnabled'),
      toggle('FacebookLoginEnabled'),
    ],
  },
  { title: 'settings.section.referral', fields: [{ name: 'bonus', kind: 'number', min: 0, max: 1_000_000 }] },
  { title: 'settings.section.wallet', fields: [text('walletMoneyField'), toggle('RiderWithDraw'), toggle('negativeBalance'), toggle('bank_fields')] },
  {
    title: 'settings.section.advanced',
    fields: [
      toggle('convert_to_mile'),
      toggle('CarHornRepeat'),
      toggle('AllowDeliveryPickupImageCapture'),
      toggle('AllowFinalDeliveryImageCapture'),
      toggle('horizontal_view'),
      toggle('useDistanceMatrix'),
      toggle('showLiveRoute'),
      text('panic'),
    ],
  },
  {
    title: 'settings.section.dispatch',
    fields: [
      { name: 'driverRadius', kind: 'number', min: 0 },
      toggle('autoDispatch'),
      // The default first.
      { name: 'dispatchPolicy', kind: 'select', options: ['batch', 'waves', 'nearest', 'broadcast'] },
      { name: 'dispatchOfferSeconds', kind: 'number', min: 5, max: 3600, integer: true },
      { name: 'dispatchBatchSeconds', kind: 'number', min: 1, max: 60, integer: true, usedWhen: BATCH },
      { name: 'dispatchWaveSize', kind: 'number', min: 1, max: 100, integer: true, usedWhen: WAVES },
      { name: 'dispatchMaxWaves', kind: 'number', min: 1, max: 100, integer: true, usedWhen: WAVES },
      { name: 'dispatchRadiusStep', kind: 'number', min: 0, usedWhen: WAVES },
    ],
  },
  {
    // Issue #34: when the system gives up on a booking, and closes a paid one.
    title: 'settings.section.limits',
    fields: [
      { name: 'noDriverCancelMinutes', kind: 'number', min: 1, max: 1440, integer: true, unit: 'settings.unit.minutes' },
      { name: 'autoCompleteMinutes', kind: 'number', min: 1, max: 10080, integer: true, unit: 'settings.unit.minutes' },
    ],
  },
  {
    // Issue #37: shown on receipts only; fares already include the tax (docs/operations.md).
    title: 'settings.section.taxes',
    fields: [
      text('taxName'),
      { name: 'taxRate', kind: 'number', min: 0, max: 100, unit: 'settings.unit.percent' },
      text('taxNumber'),
    ],
  },
  {
    // Issue #35: the demo city's drivers and riders, played by the server.
    title: 'settings.section.living_demo',
    demoCityOnly: true,
    fields: [
      toggle('livingDemo'),
      { name: 'livingDemoBookingsPerHour', kind: 'number', min: 0, max: 600, integer: true, unit: 'settings.unit.per_hour', usedWhen: { field: 'livingDemo', values: ['true'] } },
    ],
  },
];

/** The sections a server shows: the demo city's own only on the demo city. */
export function visibleSections(sections: SettingsSection[], source: Record<string, unknown> | undefined): SettingsSection[] {
  return sections.filter((section) => !section.demoCityOnly || source?.demoCity === true);
}

export const APP_INFO_SECTIONS: SettingsSection[] = [
  { title: 'settings.section.company', fields: ['appName', 'CompanyName', 'CompanyAddress', 'CompanyWebsite', 'contact_email', 'CompanyPhone', 'CompanyTerms'].map(text) },
  { title: 'settings.section.links', fields: ['FacebookHandle', 'TwitterHandle', 'InstagramHandle', 'AppleStoreLink', 'PlayStoreLink'].map(text) },
];

export type FormValues = Record<string, string | boolean>;

/** The form's values from what the server sent (numbers as text while edited). */
export function formValues(sections: SettingsSection[], source: Record<string, unknown>): FormValues {
  const values: FormValues = {};
  for (const field of sections.flatMap((section) => section.fields)) {
    const value = source[field.name];
    values[field.name] =
      field.kind === 'switch' ? Boolean(value) : field.kind === 'multi' && Array.isArray(value) ? value.join(',') : value === undefined || value === null ? '' : String(value);
  }
  return values;
}

/** The translation key of what is wrong with a field's value, or null. */
export function fieldProblem(field: SettingsField, value: string | boolean): string | null {
  if (field.kind !== 'number') return null;
  const text = String(value).trim();
  const number = Number(text);
  if (text === '' || !Number.isFinite(number)) return field.name === 'bonus' ? 'proper_bonus' : 'settings.number_required';
  if (field.integer && !Number.isInteger(number)) return 'settings.whole_number';
  if ((field.min !== undefined && number < field.min) || (field.max !== undefined && number > field.max)) return field.name === 'bonus' ? 'proper_bonus' : 'settings.out_of_range';
  return null;
}

/** Only the fields that changed, numbers as numbers: what PATCH sends. */
export function changedFields(sections: SettingsSection[], before: FormValues, after: FormValues): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const field of sections.flatMap((section) => section.fields)) {
    if (before[field.name] === after[field.name]) continue;
    const value = after[field.name];
    body[field.name] =
      field.kind === 'number'
        ? Number(String(value).trim())
        : field.kind === 'multi'
          ? String(value).split(',').filter(Boolean)
          : typeof value === 'string'
            ? value.trim()
            : value;
  }
  return body;
}

/** Whether a field does anything with the form's other values as they are. */
export function isUsed(field: SettingsField, values: FormValues): boolean {
  return !field.usedWhen || field.usedWhen.values.includes(String(values[field.usedWhen.field] ?? ''));
}
