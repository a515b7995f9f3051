// Issue #37: signing in with Google, Apple or Facebook. The server offers
// the providers switched on in the settings and configured on it; a button
// leaves the app for `/auth/oauth/{provider}/start`, and the provider's
// callback comes back signed in (the session cookie) or to `/login?error=…`.
import { queryOptions, useQuery } from '@tanstack/react-query';
import { api, API_PREFIX } from '@/lib/api-client';
import { queryKeys } from '@/lib/query-keys';
import { setSessionMarker } from '@/lib/session-marker';
import type { SocialProviders } from '@/types/api';

export type SocialProvider = 'google' | 'apple' | 'facebook';

export function getSocialProviders() {
  return api.get<SocialProviders>('/auth/oauth/providers');
}

export const socialProvidersQueryOptions = () =>
  queryOptions({
    queryKey: queryKeys.socialProviders,
    queryFn: getSocialProviders,
    staleTime: 5 * 60_000,
    select: (answer) => answer.providers.filter(isSocialProvider),
  });

export function useSocialProviders() {
  return useQuery(socialProvidersQueryOptions());
}

function isSocialProvider(name: string): name is SocialProvider {
  return name === 'google' || name === 'apple' || name === 'facebook';
}

/** Where a provider's button goes: the server's start, coming back to `returnTo`. */
export function socialStartUrl(provider: SocialProvider, returnTo: string) {
  return `${API_PREFIX}/auth/oauth/${provider}/start?${new URLSearchParams({ return: returnTo }).toString()}`;
}

/** The session cookie is HttpOnly: the marker tells the app to ask `/auth/me`
 * when it comes back (a refused sign-in answers 401 and clears it again). */
export function markSocialSignIn() {
  setSessionMarker(true);
}
