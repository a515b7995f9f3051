import { act, screen, waitFor } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { applySos } from '@/features/realtime/lib/apply-server-event';
import { SosBanner } from '@/features/sos/components/sos-banner';
import { queryKeys } from '@/lib/query-keys';
import { testSosAlert as sos } from '@/testing/fixtures';
import { mockApi } from '@/testing/mock-api';
import { renderWithProviders, seededClient, testUser } from '@/testing/test-utils';

// The socket bridge (features/realtime) and the banner (features/sos) meet
// only here: features do not import each other.
const admin = testUser({ id: 'user-admin', usertype: 'admin' });

describe('the SOS banner', () => {
  it('follows the socket: a new alert appears, a taken one goes', async () => {
    mockApi({ 'GET /api/v1/sos': () => ({ items: [], next: null }) });
    const client = seededClient(admin);
    renderWithProviders(<SosBanner />, { client });
    await vi.waitFor(() => expect(client.getQueryData(queryKeys.sos.open)).toEqual([]));
    expect(screen.queryByTestId('sos-banner')).not.toBeInTheDocument();
    act(() => applySos(client, sos('b')));
    expect(await screen.findByTestId('sos-banner')).toHaveTextContent('REFB');
    act(() => applySos(client, sos('b', { state: 'taken', taken_at: 1 })));
    await waitFor(() => expect(screen.queryByTestId('sos-banner')).not.toBeInTheDocument());
  });
});
