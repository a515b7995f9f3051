// Payment providers (spec §3) and the hosted checkout: an HTML form POST to
// the provider's link with the spec's hidden fields (spec §7).
import { queryOptions, useQuery } from '@tanstack/react-query';
import { useSearchParams } from 'react-router';
import { api, isApiError } from '@/lib/api-client';
import { queryKeys } from '@/lib/query-keys';
import type { Booking, PaymentProvider, Settings, User } from '@/types/api';

/** Empty while the server has no payments route yet. */
export async function getPaymentProviders(): Promise<PaymentProvider[]> {
  try {
    const answer = await api.get<PaymentProvider[] | { providers: PaymentProvider[] }>('/payments/providers');
    return Array.isArray(answer) ? answer : (answer.providers ?? []);
  } catch (error) {
    if (isApiError(error) && (error.missingRoute || error.status === 404)) return [];
    throw error;
  }
}

export const paymentProvidersQueryOptions = () =>
  queryOptions({ queryKey: queryKeys.paymentProviders, queryFn: getPaymentProviders, staleTime: 10 * 60_000 });

export function usePaymentProviders(enabled = true) {
  return useQuery({ ...paymentProvidersQueryOptions(), enabled });
}

/** How a checkout ended, as the gateway's return link says: `paid` (its
 * success_url) or `cancelled` (its cancel_url: the payer gave up or the
 * gateway declined). */
export type CheckoutOutcome = 'paid' | 'cancelled';

/** The search parameter a trip's checkout comes back with (`/bookings?trip=…&payment=paid`). */
export const TRIP_PAYMENT_PARAM = 'payment';
/** The search parameter a wallet top-up comes back with (`/bookings?topup=paid`). */
export const TOP_UP_PARAM = 'topup';

export interface ReturnUrls {
  success_url: string;
  cancel_url: string;
}

/** The links a gateway sends the payer back to: `path` with `params`, and
 * `outcomeParam` saying how the checkout ended (the server keeps only the
 * path and query, so the payer always comes back to this site). */
export function checkoutReturnUrls(path: string, outcomeParam: string, params: Record<string, string> = {}, origin = window.location.origin): ReturnUrls {
  const link = (outcome: CheckoutOutcome) => `${origin}${path}?${new URLSearchParams({ ...params, [outcomeParam]: outcome })}`;
  return { success_url: link('paid'), cancel_url: link('cancelled') };
}

/** A search parameter's value when it names a checkout outcome. */
export function checkoutOutcome(value: string | null): CheckoutOutcome | null {
  return value === 'paid' || value === 'cancelled' ? value : null;
}

/** The outcome a gateway's return link carries in `param`, and a way to
 * dismiss it (the parameter leaves the address, so a reload says nothing). */
export function useCheckoutOutcome(param: string) {
  const [params, setParams] = useSearchParams();
  const outcome = checkoutOutcome(params.get(param));
  const dismiss = () =>
    setParams(
      (current) => {
        const next = new URLSearchParams(current);
        next.delete(param);
        return next;
      },
      { replace: true },
    );
  return { outcome, dismiss };
}

function payer(user: User) {
  return {
    first_name: user.firstName ?? '',
    last_name: user.lastName ?? '',
    quantity: '1',
    cust_id: user.id,
    mobile_no: user.mobile ?? '',
    email: user.email ?? '',
  };
}

/** Spec §7: the checkout form of a trip; its order is the booking. */
export function checkoutFields(booking: Booking, user: User, settings: Settings, urls: ReturnUrls) {
  return {
    order_id: booking.id,
    amount: String(booking.payableAmount || booking.trip_cost || booking.estimate),
    currency: settings.code ?? '',
    product_name: `${settings.appName} ${booking.reference}`,
    ...payer(user),
    ...urls,
  };
}

/** A fresh order id of a wallet top-up (`wallet-…`, docs/api.md "Payments"). */
export function topUpOrderId(now = Date.now(), random = Math.random()) {
  return `wallet-${now.toString(36)}${Math.floor(random * 36 ** 6).toString(36).padStart(6, '0')}`;
}

/** Spec §7's checkout form of a wallet top-up of `amount` (plain decimal text). */
export function topUpFields(amount: string, productName: string, user: User, settings: Settings, urls: ReturnUrls, orderId = topUpOrderId()) {
  return {
    order_id: orderId,
    amount,
    currency: settings.code ?? '',
    product_name: productName,
    ...payer(user),
    ...urls,
  };
}

/** Posts the checkout form to the provider; the page leaves for the gateway. */
export function postToGateway(link: string, fields: Record<string, string>) {
  const form = document.createElement('form');
  form.method = 'POST';
  form.action = link;
  form.style.display = 'none';
  for (const [name, value] of Object.entries(fields)) {
    const input = document.createElement('input');
    input.type = 'hidden';
    input.name = name;
    input.value = value ?? '';
    form.appendChild(input);
  }
  document.body.appendChild(form);
  form.submit();
}
