import { describe, expect, it } from 'vitest';
import type { GatewayView } from '@/types/api';
import { gatewayEdit, gatewayForm, gatewayStatus, gatewayTitle, missingAfter } from '../lib/gateway-form';

function razorpay(overrides: Partial<GatewayView> = {}): GatewayView {
  return {
    name: 'razorpay',
    active: false,
    testing: false,
    usable: false,
    missing: ['KEY_ID', 'KEY_SECRET'],
    inFile: false,
    activeInFile: false,
    testingInFile: false,
    webhookUrl: 'https://ride.example.com/api/v1/payments/razorpay/webhook',
    fields: [
      { name: 'KEY_ID', kind: 'text', required: true, set: false, inFile: false, value: null },
      { name: 'KEY_SECRET', kind: 'secret', required: true, set: false, inFile: false },
      { name: 'webhook_secret', kind: 'secret', required: true, set: true, inFile: false },
    ],
    ...overrides,
  };
}

describe('the payment settings form', () => {
  it('sends only what changed, secrets only when typed or cleared', () => {
    const gateway = razorpay();
    const form = gatewayForm(gateway);
    expect(gatewayEdit(gateway, form)).toEqual({});
    form.active = true;
    form.values.KEY_ID = ' rzp_live_1 ';
    form.values.KEY_SECRET = 'secret';
    expect(gatewayEdit(gateway, form)).toEqual({ active: true, fields: { KEY_ID: 'rzp_live_1', KEY_SECRET: 'secret' } });
    form.clear.webhook_secret = true;
    expect(gatewayEdit(gateway, form).fields).toEqual({ KEY_ID: 'rzp_live_1', KEY_SECRET: 'secret', webhook_secret: null });
  });

  it('clears a text field with null and leaves what the configuration file sets alone', () => {
    const gateway = razorpay({
      activeInFile: true,
      active: true,
      fields: [
        { name: 'KEY_ID', kind: 'text', required: true, set: true, inFile: true, value: 'rzp_file' },
        { name: 'note', kind: 'text', required: false, set: true, inFile: false, value: 'old' },
      ],
    });
    const form = gatewayForm(gateway);
    expect(form.values).toEqual({ KEY_ID: 'rzp_file', note: 'old' });
    form.active = false;
    form.values.KEY_ID = 'changed';
    form.values.note = '';
    expect(gatewayEdit(gateway, form)).toEqual({ fields: { note: null } });
  });

  it('names the required fields still missing and the state of each gateway', () => {
    const gateway = razorpay();
    const form = gatewayForm(gateway);
    expect(missingAfter(gateway, form)).toEqual(['KEY_ID', 'KEY_SECRET']);
    form.values.KEY_ID = 'rzp';
    form.values.KEY_SECRET = 's';
    expect(missingAfter(gateway, form)).toEqual([]);
    form.clear.webhook_secret = true;
    expect(missingAfter(gateway, form)).toEqual(['webhook_secret']);
    expect(gatewayStatus(razorpay())).toBe('off');
    expect(gatewayStatus(razorpay({ active: true }))).toBe('incomplete');
    expect(gatewayStatus(razorpay({ active: true, usable: true }))).toBe('on');
    expect(gatewayTitle('mercadopago')).toBe('Mercado Pago');
    expect(gatewayTitle('newpay')).toBe('newpay');
  });
});
