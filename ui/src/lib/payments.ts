// Payment providers (spec §3) and the hosted checkout: an HTML form POST to
// the provider's link with the spec's hidden fields (spec §7).
import { queryOptions, useQuery } from '@tanstack/react-query';
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

export function checkoutFields(booking: Booking, user: User, settings: Settings, returnUrl: string) {
  return {
    order_id: booking.id,
    amount: String(booking.payableAmount || booking.trip_cost || booking.estimate),
    currency: settings.code,
    product_name: `${settings.appName} ${booking.reference}`,
    first_name: user.firstName,
    last_name: user.lastName,
    quantity: '1',
    cust_id: user.id,
    mobile_no: user.mobile,
    email: user.email,
    success_url: returnUrl,
    cancel_url: returnUrl,
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
