import { describe, expect, it } from 'vitest';
import { testUser } from '@/testing/test-utils';
import { formValuesOf, userActions, userBody, userColumns, userFormSchema } from '../lib/user-rules';

describe('the users screens’ rules', () => {
  it('show drivers their vehicle and rating, and wallets only to admins', () => {
    const fields = (list: Parameters<typeof userColumns>[0], viewer: Parameters<typeof userColumns>[1]) => userColumns(list, viewer).map((column) => column.field);
    expect(fields('drivers', 'admin')).toEqual(['name', 'approved', 'email', 'mobile', 'carType', 'vehicleNumber', 'vehicleMake', 'vehicleModel', 'rating', 'walletBalance', 'createdAt']);
    expect(fields('drivers', 'fleetadmin')).not.toContain('walletBalance');
    expect(fields('riders', 'admin')).toEqual(['name', 'approved', 'email', 'mobile', 'referralId', 'walletBalance', 'createdAt']);
    expect(fields('alladmin', 'admin')).toEqual(['name', 'approved', 'email', 'mobile', 'createdAt']);
  });

  it('need both names and a proper e-mail or mobile (email_or_mobile_issue)', () => {
    const values = { ...formValuesOf(null), firstName: 'Nina', lastName: 'New' };
    const issues = (input: typeof values) => (userFormSchema.safeParse(input).error?.issues ?? []).map((issue) => `${String(issue.path[0])}:${issue.message}`);
    expect(issues(values)).toEqual(['email:email_or_mobile_issue']);
    expect(issues({ ...values, email: 'nina@' })).toEqual(['email:email_or_mobile_issue']);
    expect(issues({ ...values, mobile: '+1 410' })).toEqual(['mobile:email_or_mobile_issue']);
    expect(issues({ ...values, mobile: '+1 410 555 6100' })).toEqual([]);
    expect(issues({ ...values, firstName: ' ', email: 'nina@example.com' })).toEqual(['firstName:profile.first_name_required']);
  });

  it('send contacts and the type only when adding, and a fleet only as an admin', () => {
    const values = { ...formValuesOf(null), firstName: 'Nina', lastName: 'New', email: 'nina@example.com', carType: 'Economy', vehicleNumber: ' MD-1 ', fleetadmin: 'f-1' };
    expect(userBody(values, 'driver', 'admin', true)).toMatchObject({ usertype: 'driver', email: 'nina@example.com', carType: 'Economy', vehicleNumber: 'MD-1', fleetadmin: 'f-1' });
    const edit = userBody(values, 'driver', 'fleetadmin', false);
    expect(edit).not.toHaveProperty('email');
    expect(edit).not.toHaveProperty('usertype');
    expect(edit).not.toHaveProperty('fleetadmin');
    expect(userBody(values, 'rider', 'admin', true)).not.toHaveProperty('carType');
  });

  it('never let an admin delete themself, and write nothing in demo mode', () => {
    const me = testUser({ usertype: 'admin' });
    const other = testUser({ id: 'someone-else', approved: false });
    expect(userActions(me, { id: me.id, role: 'admin' }, true)).toEqual({ edit: true, approve: false, delete: false });
    expect(userActions(other, { id: me.id, role: 'admin' }, true)).toEqual({ edit: true, approve: true, delete: true });
    expect(userActions(other, { id: me.id, role: 'admin' }, false)).toEqual({ edit: false, approve: false, delete: false });
  });
});
