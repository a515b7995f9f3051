import { describe, expect, it } from 'vitest';
import { ApiError } from '@/lib/api-client';
import { queryKeys } from '@/lib/query-keys';
import { createQueryClient } from '@/lib/react-query';
import { setSessionMarker, hasSessionMarker } from '@/lib/session-marker';
import { testUser } from '@/testing/test-utils';

describe('the query client', () => {
  it('forgets a session the server no longer knows, so the guards send the user to sign in', async () => {
    const client = createQueryClient();
    client.setQueryData(queryKeys.me, testUser());
    setSessionMarker(true);
    await client
      .fetchQuery({
        queryKey: ['bookings', 'list'],
        queryFn: () => Promise.reject(new ApiError(401, 'not_logged_in', 'Please sign in.')),
        retry: false,
      })
      .catch(() => undefined);
    expect(client.getQueryData(queryKeys.me)).toBeNull();
    expect(hasSessionMarker()).toBe(false);
  });

  it('keeps the session through other refusals', async () => {
    const client = createQueryClient();
    client.setQueryData(queryKeys.me, testUser());
    await client
      .fetchQuery({ queryKey: ['x'], queryFn: () => Promise.reject(new ApiError(403, 'not_allowed', '')), retry: false })
      .catch(() => undefined);
    expect(client.getQueryData(queryKeys.me)).toMatchObject({ id: 'user-rider-1' });
  });
});
