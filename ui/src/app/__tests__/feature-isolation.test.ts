import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';

// The lint rule that keeps features apart (eslint-rules/feature-isolation.js),
// run through ESLint's own API with the app's config on files that exist only
// in memory.
const eslint = new ESLint({ cwd: resolve(dirname(fileURLToPath(import.meta.url)), '../../..') });

async function problems(filePath: string, code: string) {
  const [result] = await eslint.lintText(code, { filePath });
  return result.messages.filter((message) => message.ruleId === 'wayfare/feature-isolation').map((message) => message.message);
}

describe('the feature isolation lint rule', () => {
  it('refuses a feature importing another, by alias or relative path', async () => {
    const found = await problems(
      'src/features/trips/components/example.tsx',
      [
        "import { SosButton } from '@/features/sos/components/sos-button';",
        "import { ChatPanel } from '../../chat/components/chat-panel';",
        'export const parts = [SosButton, ChatPanel];',
      ].join('\n'),
    );
    expect(found).toEqual([
      expect.stringContaining('features/trips imports from features/sos'),
      expect.stringContaining('features/trips imports from features/chat'),
    ]);
  });

  it('also sees re-exports, lazy imports and mocks', async () => {
    const found = await problems(
      'src/features/wallet/__tests__/example.test.ts',
      [
        "export { applySos } from '@/features/realtime/lib/apply-server-event';",
        "export const later = () => import('@/features/auth/lib/login-schema');",
        "vi.mock('@/features/booking/api/estimate');",
      ].join('\n'),
    );
    expect(found).toHaveLength(3);
  });

  it('lets a feature import itself and the shared folders, and a route import any feature', async () => {
    const ownAndShared = await problems(
      'src/features/trips/components/example.tsx',
      [
        "import { useBooking } from '@/features/trips/api/bookings';",
        "import { isActive } from '../lib/booking-status';",
        "import { api } from '@/lib/api-client';",
        "import { MapView } from '@/components/map/map-view';",
        'export const parts = [useBooking, isActive, api, MapView];',
      ].join('\n'),
    );
    const route = await problems(
      'src/app/routes/example.tsx',
      ["import { SosButton } from '@/features/sos/components/sos-button';", "import { TripView } from '@/features/trips/components/trip-view';", 'export const parts = [SosButton, TripView];'].join('\n'),
    );
    expect([ownAndShared, route]).toEqual([[], []]);
  });
});
