import { describe, expect, it } from 'vitest';
import { APP_INFO_SECTIONS, changedFields, fieldProblem, formValues, isUsed, SETTINGS_SECTIONS, visibleSections } from '../lib/settings-fields';

const field = (name: string) => SETTINGS_SECTIONS.flatMap((section) => section.fields).find((candidate) => candidate.name === name)!;

describe('the settings form', () => {
  it('offers the dispatch settings the server has, with their bounds', () => {
    const names = SETTINGS_SECTIONS.flatMap((section) => section.fields.map((candidate) => candidate.name));
    expect(names).toEqual(expect.arrayContaining(['autoDispatch', 'driverRadius', 'dispatchPolicy', 'dispatchWaveSize', 'dispatchOfferSeconds', 'dispatchMaxWaves', 'dispatchRadiusStep', 'dispatchBatchSeconds', 'bonus']));
    expect(field('dispatchOfferSeconds')).toMatchObject({ min: 5, max: 3600, integer: true });
    expect(field('dispatchPolicy').options).toEqual(['batch', 'waves', 'nearest', 'broadcast']);
    expect(field('dispatchBatchSeconds')).toMatchObject({ kind: 'number', min: 1, max: 60, integer: true });
    expect(APP_INFO_SECTIONS.flatMap((section) => section.fields.map((candidate) => candidate.name))).toContain('contact_email');
  });

  it('offers a switch for each social sign-in provider', () => {
    for (const name of ['GoogleLoginEnabled', 'AppleLoginEnabled', 'FacebookLoginEnabled']) expect(field(name)).toMatchObject({ kind: 'switch' });
  });

  it('accepts only numbers the server accepts, naming proper_bonus for the bonus', () => {
    expect(fieldProblem(field('bonus'), '')).toBe('proper_bonus');
    expect(fieldProblem(field('bonus'), '-1')).toBe('proper_bonus');
    expect(fieldProblem(field('bonus'), '5')).toBeNull();
    expect(fieldProblem(field('dispatchOfferSeconds'), '4')).toBe('settings.out_of_range');
    expect(fieldProblem(field('dispatchWaveSize'), '2.5')).toBe('settings.whole_number');
    expect(fieldProblem(field('dispatchBatchSeconds'), '0')).toBe('settings.out_of_range');
    expect(fieldProblem(field('dispatchBatchSeconds'), '61')).toBe('settings.out_of_range');
    expect(fieldProblem(field('dispatchBatchSeconds'), '1.5')).toBe('settings.whole_number');
    expect(fieldProblem(field('dispatchBatchSeconds'), '60')).toBeNull();
    expect(fieldProblem(field('driverRadius'), 'far')).toBe('settings.number_required');
    expect(fieldProblem(field('autoDispatch'), true)).toBeNull();
  });

  it('sends only what changed, numbers as numbers', () => {
    const before = formValues(SETTINGS_SECTIONS, { decimal: 2, autoDispatch: true, driverRadius: 10, code: 'USD', dispatchPolicy: 'waves' });
    expect(before).toMatchObject({ decimal: '2', autoDispatch: true, driverRadius: '10', code: 'USD' });
    const after = { ...before, autoDispatch: false, driverRadius: ' 7.5 ', code: 'USD' };
    expect(changedFields(SETTINGS_SECTIONS, before, after)).toEqual({ autoDispatch: false, driverRadius: 7.5 });
    const batch = { ...before, dispatchPolicy: 'batch', dispatchBatchSeconds: '10' };
    expect(changedFields(SETTINGS_SECTIONS, before, batch)).toEqual({ dispatchPolicy: 'batch', dispatchBatchSeconds: 10 });
  });

  it('greys out what the chosen policy does not use, and keeps what every policy uses', () => {
    const under = (dispatchPolicy: string) => formValues(SETTINGS_SECTIONS, { dispatchPolicy });
    const used = (policy: string) =>
      ['dispatchOfferSeconds', 'dispatchBatchSeconds', 'dispatchWaveSize', 'dispatchMaxWaves', 'dispatchRadiusStep', 'driverRadius'].filter((name) => isUsed(field(name), under(policy)));
    expect(used('batch')).toEqual(['dispatchOfferSeconds', 'dispatchBatchSeconds', 'driverRadius']);
    expect(used('waves')).toEqual(['dispatchOfferSeconds', 'dispatchWaveSize', 'dispatchMaxWaves', 'dispatchRadiusStep', 'driverRadius']);
    expect(used('nearest')).toEqual(['dispatchOfferSeconds', 'driverRadius']);
    expect(used('broadcast')).toEqual(['dispatchOfferSeconds', 'driverRadius']);
  });

  it('offers the service first, taxi or parcel delivery, and never demo mode (issue #34)', () => {
    expect(SETTINGS_SECTIONS[0].fields).toEqual([{ name: 'appcat', kind: 'choice', options: ['taxi', 'delivery'] }]);
    const names = SETTINGS_SECTIONS.flatMap((section) => section.fields.map((candidate) => candidate.name));
    expect(names).not.toContain('AllowCriticalEditsAdmin');
    const before = formValues(SETTINGS_SECTIONS, { appcat: 'taxi', AllowCriticalEditsAdmin: false });
    expect(before).not.toHaveProperty('AllowCriticalEditsAdmin');
    expect(changedFields(SETTINGS_SECTIONS, before, { ...before, appcat: 'delivery' })).toEqual({ appcat: 'delivery' });
  });

  it('bounds the two new minutes settings as the server does', () => {
    expect(field('noDriverCancelMinutes')).toMatchObject({ kind: 'number', min: 1, max: 1440, integer: true });
    expect(field('autoCompleteMinutes')).toMatchObject({ kind: 'number', min: 1, max: 10080, integer: true });
    expect(fieldProblem(field('noDriverCancelMinutes'), '0')).toBe('settings.out_of_range');
    expect(fieldProblem(field('noDriverCancelMinutes'), '1441')).toBe('settings.out_of_range');
    expect(fieldProblem(field('noDriverCancelMinutes'), '1440')).toBeNull();
    expect(fieldProblem(field('autoCompleteMinutes'), '10081')).toBe('settings.out_of_range');
    expect(fieldProblem(field('autoCompleteMinutes'), '90.5')).toBe('settings.whole_number');
    expect(fieldProblem(field('autoCompleteMinutes'), '')).toBe('settings.number_required');
    expect(fieldProblem(field('autoCompleteMinutes'), '10080')).toBeNull();
  });

  it('shows the living demo only on the demo city, its rate only while it plays (issue #35)', () => {
    const titles = (source: Record<string, unknown>) => visibleSections(SETTINGS_SECTIONS, source).map((section) => section.title);
    expect(titles({ demoCity: true })).toContain('settings.section.living_demo');
    expect(titles({ demoCity: false })).not.toContain('settings.section.living_demo');
    expect(titles({})).not.toContain('settings.section.living_demo');
    const fields = SETTINGS_SECTIONS.flatMap((section) => section.fields);
    const rate = fields.find((field) => field.name === 'livingDemoBookingsPerHour')!;
    expect(fieldProblem(rate, '601')).toBe('settings.out_of_range');
    expect(fieldProblem(rate, '0')).toBeNull();
    expect(isUsed(rate, { livingDemo: true })).toBe(true);
    expect(isUsed(rate, { livingDemo: false })).toBe(false);
    expect(changedFields(SETTINGS_SECTIONS, { livingDemo: true, livingDemoBookingsPerHour: '30' }, { livingDemo: false, livingDemoBookingsPerHour: '30' })).toEqual({ livingDemo: false });
  });
});
