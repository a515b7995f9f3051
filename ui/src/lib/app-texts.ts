// The app category's words (spec §1: taxi or delivery changes the wording).
// A text that reads differently for parcels has a `_delivery` variant of its
// key (`trip.rate_title_delivery` beside `trip.rate_title`), found through
// i18next's context; a key without one reads the same for both. A booking's
// texts follow the booking's own `appcat` (it keeps the category it was made
// in); forms and lists follow the platform's setting.
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { useSettings } from '@/lib/app-data';
import type { AppCategory } from '@/types/api';

/** The `t` the screens call: a key and its interpolation values. */
export type Texts = (key: string, values?: Record<string, unknown>) => string;

/** The i18next context of a category: `delivery`, or none for taxi. */
export function textContext(appcat: AppCategory | null | undefined): 'delivery' | undefined {
  return appcat === 'delivery' ? 'delivery' : undefined;
}

/** `t` in the category's words. */
export function textsFor(appcat: AppCategory | null | undefined, t: Texts): Texts {
  const context = textContext(appcat);
  if (!context) return t;
  return (key, values) => t(key, { ...values, context });
}

/** `t` in the words of `appcat` (a booking's), or of the platform's setting when none is given. */
export function useAppTexts(appcat?: AppCategory | null) {
  const { t, i18n } = useTranslation();
  const setting = useSettings().appcat;
  const category = appcat ?? setting;
  return useMemo(
    () => ({ t: textsFor(category, t as Texts), i18n, category, delivery: category === 'delivery' }),
    [category, t, i18n],
  );
}
