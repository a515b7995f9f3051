import { describe, expect, it } from 'vitest';
import type { Application, DriverDocument } from '@/types/api';
import { attentionOf, dayOf, documentsNeedingRenewal, draftErrors, emptyDraft, kindsNeverSent, modelYears, requiredKinds } from '../lib/documents';
import { detailsSchema, emptyDetails } from '../lib/signup-schema';

const NOW = Date.UTC(2027, 0, 15);
const DAY = 86_400_000;

function document(patch: Partial<DriverDocument>): DriverDocument {
  return {
    driver: 'd-1',
    kind: 'insurance',
    number: '',
    expiresAt: null,
    front: '/api/v1/files/f',
    back: null,
    status: 'approved',
    reason: null,
    reviewedBy: null,
    reviewedAt: null,
    remindedAt: null,
    createdAt: NOW,
    updatedAt: NOW,
    ...patch,
  };
}

describe('driver documents', () => {
  it('asks a licence for its images, number and expiry, and a photo for its image only', () => {
    expect(draftErrors('licence', emptyDraft())).toEqual({ front: 'choose_image_first', number: 'document_number_missing', expiry: 'document_expiry_invalid' });
    const photo = { ...emptyDraft(), front: new File(['x'], 'me.png', { type: 'image/png' }) };
    expect(draftErrors('photo', photo)).toEqual({});
  });

  it('tells expired, expiring, rejected and waiting documents apart', () => {
    expect(attentionOf(document({ expiresAt: NOW - 1 }), NOW)).toBe('expired');
    expect(attentionOf(document({ expiresAt: NOW + 10 * DAY }), NOW)).toBe('expiring');
    expect(attentionOf(document({ expiresAt: NOW + 40 * DAY }), NOW)).toBeNull();
    expect(attentionOf(document({ status: 'rejected' }), NOW)).toBe('rejected');
    expect(attentionOf(document({ status: 'pending' }), NOW)).toBe('pending');
  });

  it('warns an approved driver only about required documents that need renewing or were never sent', () => {
    const application: Application = {
      status: 'incomplete',
      reason: null,
      required: ['insurance', 'photo', 'licence'],
      missing: ['insurance', 'licence'],
      documents: [document({ expiresAt: NOW - DAY }), document({ kind: 'registration', expiresAt: NOW - DAY }), document({ kind: 'photo' })],
    };
    expect(documentsNeedingRenewal(application, NOW).map((entry) => entry.kind)).toEqual(['insurance']);
    expect(kindsNeverSent(application)).toEqual(['licence']);
  });

  it('keeps the settings order of required kinds and dates in UTC', () => {
    expect(requiredKinds(['photo', 'licence'])).toEqual(['licence', 'photo']);
    expect(requiredKinds(undefined)).toHaveLength(4);
    expect(dayOf(NOW + DAY - 1)).toBe('2027-01-15');
    expect(modelYears(new Date(NOW))[0]).toBe('2028');
  });

  it('checks the sign-up details with the server keys', () => {
    const schema = detailsSchema(new Date(NOW));
    const result = schema.safeParse({ ...emptyDetails, firstName: 'Sam', lastName: 'New', carType: 'Economy', vehicleMake: 'Toyota', vehicleModel: 'Prius', vehicleNumber: 'MD 1', vehicleColor: 'Red', vehicleYear: '2031' });
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((issue) => issue.message)).toEqual(['vehicle_year_invalid']);
    const blank = schema.safeParse(emptyDetails);
    expect(blank.error?.issues.map((issue) => issue.message)).toContain('select_proper');
  });
});
