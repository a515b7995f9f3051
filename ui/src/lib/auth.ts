// The signed-in user: a query every part of the app reads, sign-in and sign-out.
import { queryOptions, useMutation, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { chooseLanguage, i18n } from '@/i18n';
import { api, isApiError, setBearerToken } from '@/lib/api-client';
import { queryKeys } from '@/lib/query-keys';
import { hasSessionMarker, setSessionMarker } from '@/lib/session-marker';
import type { Role, SignedIn, User } from '@/types/api';

export async function getMe(): Promise<User | null> {
  if (!hasSessionMarker()) return null;
  try {
    const answer = await api.get<{ user: User }>('/auth/me');
    return answer.user;
  } catch (error) {
    if (isApiError(error) && (error.status === 401 || error.status === 403)) {
      setSessionMarker(false);
      return null;
    }
    throw error;
  }
}

export const meQueryOptions = () =>
  queryOptions({
    queryKey: queryKeys.me,
    queryFn: getMe,
    staleTime: 60_000,
  });

export function useUser() {
  return useQuery(meQueryOptions());
}

export function requestCode(input: { contact: string; country?: string }) {
  return api.post<{ channel: 'email' | 'sms'; expiresAt: number }>('/auth/otp/request', input);
}

export function verifyCode(input: { contact: string; code: string; referralId?: string }) {
  return api.post<SignedIn>('/auth/otp/verify', input);
}

/** Spec §7 validate_referrer: whether some user has this referral code (404 `referral_invalid` if not). */
export function checkReferral(referralId: string) {
  return api.post<{ valid: boolean; referralId: string }>('/auth/referral', { referralId });
}

/** Where each user type lands after signing in (spec §4 Login). */
export function homePathFor(role: Role | undefined): string {
  switch (role) {
    case 'admin':
    case 'fleetadmin':
      return '/dashboard';
    case 'driver':
      return '/bookings';
    default:
      return '/';
  }
}

export function useSignIn() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: verifyCode,
    meta: { handlesErrors: true },
    onSuccess: ({ token, user }) => {
      setBearerToken(token);
      setSessionMarker(true);
      queryClient.setQueryData(queryKeys.me, user);
      // The language chosen in the profile follows the user to this browser.
      const language = user.lang?.langLocale;
      if (language && language !== i18n.language && i18n.hasResourceBundle(language, 'translation')) void chooseLanguage(language);
    },
  });
}

/** Spec §9: sign-out completes after 2000 ms (the server has already set a
 * driver offline). */
export const SIGN_OUT_DELAY_MS = 2000;

export function useSignOut() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async () => {
      try {
        await api.post('/auth/logout');
      } catch (error) {
        // An expired session is signed out already.
        if (!(isApiError(error) && error.status === 401)) throw error;
      }
      await new Promise((resolve) => setTimeout(resolve, SIGN_OUT_DELAY_MS));
    },
    onSuccess: () => {
      setBearerToken(null);
      setSessionMarker(false);
      queryClient.setQueryData(queryKeys.me, null);
      queryClient.removeQueries({ predicate: (query) => !isPublicQuery(query.queryKey) });
    },
  });
}

function isPublicQuery(key: readonly unknown[]) {
  return ['settings', 'cartypes', 'languages', 'auth'].includes(String(key[0]));
}

/** A session that ended elsewhere (expired, revoked): forget it here too. */
export function forgetSession(queryClient: QueryClient) {
  setBearerToken(null);
  setSessionMarker(false);
  queryClient.setQueryData(queryKeys.me, null);
}
