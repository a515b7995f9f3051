import { MutationCache, QueryCache, QueryClient } from '@tanstack/react-query';
import { notify } from '@/components/ui/notifications/notifications-store';
import { i18n } from '@/i18n';
import { isApiError } from '@/lib/api-client';
import { forgetSession } from '@/lib/auth';
import { queryKeys } from '@/lib/query-keys';
import { errorText } from '@/lib/server-errors';

declare module '@tanstack/react-query' {
  interface Register {
    mutationMeta: { handlesErrors?: boolean };
  }
}

/** A mutation that fails shows the translated message of its error code,
 * unless the component handles the error itself (`meta.handlesErrors`). */
export function createQueryClient() {
  const client: QueryClient = new QueryClient({
    queryCache: new QueryCache({ onError: (error) => endLostSession(client, error) }),
    mutationCache: new MutationCache({
      onError: (error, _variables, _context, mutation) => {
        if (endLostSession(client, error)) {
          notify({ severity: 'warning', message: 'not_logged_in' });
          return;
        }
        if (mutation.meta?.handlesErrors) return;
        notify({ severity: 'error', message: errorText(error, (key) => i18n.t(key), (key) => i18n.exists(key)), translated: true });
      },
    }),
    defaultOptions: {
      queries: {
        retry: (failures, error) => !(isApiError(error) && error.status >= 400 && error.status < 500) && failures < 2,
        refetchOnWindowFocus: true,
        staleTime: 10_000,
      },
    },
  });
  return client;
}

/** A 401 means the session ended (expired or signed out elsewhere): the
 * guards then send the user to /login. True when that happened. */
function endLostSession(client: QueryClient, error: unknown) {
  if (!(isApiError(error) && error.status === 401 && error.code === 'not_logged_in')) return false;
  if (!client.getQueryData(queryKeys.me)) return false;
  forgetSession(client);
  return true;
}
