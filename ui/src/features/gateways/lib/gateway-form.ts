// The panel's payment settings (issue #37): what the edit dialog holds and
// the change it sends. Secrets are write-only: the dialog never has their
// value, only whether one is set; typing one replaces it, "clear" removes it.
import type { GatewayEdit, GatewayView } from '@/types/api';

/** The providers' names as their owners write them. */
const TITLES: Record<string, string> = {
  test: 'Test gateway',
  braintree: 'Braintree',
  culqi: 'Culqi',
  flutterwave: 'Flutterwave',
  liqpay: 'LiqPay',
  mercadopago: 'Mercado Pago',
  payfast: 'PayFast',
  paypal: 'PayPal',
  paystack: 'Paystack',
  payulatam: 'PayU Latam',
  securepay: 'SecurePay',
  stripe: 'Stripe',
  squareup: 'Square',
  wipay: 'WiPay',
  razorpay: 'Razorpay',
  paymongo: 'PayMongo',
  iyzico: 'iyzico',
  slickpay: 'Slick Pay',
  xendit: 'Xendit',
  tap: 'Tap',
};

export function gatewayTitle(name: string): string {
  return TITLES[name] ?? name;
}

export type GatewayStatus = 'on' | 'incomplete' | 'off';

/** On and offered; switched on but missing a required field; off. */
export function gatewayStatus(gateway: GatewayView): GatewayStatus {
  if (gateway.usable) return 'on';
  return gateway.active ? 'incomplete' : 'off';
}

export interface GatewayForm {
  active: boolean;
  testing: boolean;
  /** Text fields' values, and what is typed into secret fields (empty: keep). */
  values: Record<string, string>;
  /** Secret fields to clear. */
  clear: Record<string, boolean>;
}

export function gatewayForm(gateway: GatewayView): GatewayForm {
  const values: Record<string, string> = {};
  for (const field of gateway.fields) values[field.name] = field.kind === 'text' ? (field.value ?? '') : '';
  return { active: gateway.active, testing: gateway.testing, values, clear: {} };
}

/** The change to send: only what differs from what the server has, and
 * nothing the server's configuration file decides. */
export function gatewayEdit(gateway: GatewayView, form: GatewayForm): GatewayEdit {
  const edit: GatewayEdit = {};
  if (!gateway.activeInFile && form.active !== gateway.active) edit.active = form.active;
  if (!gateway.testingInFile && form.testing !== gateway.testing) edit.testing = form.testing;
  const fields: Record<string, string | null> = {};
  for (const field of gateway.fields) {
    if (field.inFile) continue;
    const typed = (form.values[field.name] ?? '').trim();
    if (field.kind === 'secret') {
      if (typed) fields[field.name] = typed;
      else if (form.clear[field.name] && field.set) fields[field.name] = null;
    } else if (typed !== (field.value ?? '')) {
      fields[field.name] = typed === '' ? null : typed;
    }
  }
  if (Object.keys(fields).length > 0) edit.fields = fields;
  return edit;
}

/** Required fields the form would leave unset (a gateway switched on with them is not offered). */
export function missingAfter(gateway: GatewayView, form: GatewayForm): string[] {
  return gateway.fields
    .filter((field) => field.required)
    .filter((field) => {
      const typed = (form.values[field.name] ?? '').trim();
      if (field.kind === 'secret') return !typed && (!field.set || Boolean(form.clear[field.name]));
      return !typed;
    })
    .map((field) => field.name);
}
