import type { AppCategory } from '@/types/api';

/**
 * The i18next context of the public site's wording (spec: the app category
 * changes the wording): `landing.headline_delivery` on a delivery platform,
 * `landing.headline` (no context) on a taxi one.
 */
export function wordingContext(appcat: AppCategory): 'delivery' | undefined {
  return appcat === 'delivery' ? 'delivery' : undefined;
}
