// i18next with the bundled English, Arabic and French dictionaries; the
// server's languages (when it serves them) are merged over these, its default
// language is used unless the visitor chose one, and `en` is the fallback
// (spec §1). The bundled dictionaries are the server's own files
// (http/assets/lang), the one source of truth the server also seeds its
// languages table from: flat objects whose keys contain dots (`nav.home`),
// hence `keySeparator: false`.
import dayjs from 'dayjs';
import 'dayjs/locale/ar';
import 'dayjs/locale/fr';
import i18n from 'i18next';
import { initReactI18next } from 'react-i18next';
import type { Language } from '@/types/api';
import ar from '../../../http/assets/lang/ar.json';
import en from '../../../http/assets/lang/en.json';
import fr from '../../../http/assets/lang/fr.json';

export const FALLBACK_LANGUAGE = 'en';
const STORAGE_KEY = 'wayfare.lang';
const RTL_LOCALES = new Set(['ar', 'he', 'fa', 'ur', 'ps', 'ckb', 'yi', 'dv']);

export interface LanguageOption {
  langLocale: string;
  langName: string;
  dateLocale: string;
}

export const bundledLanguages: LanguageOption[] = [
  { langLocale: 'en', langName: 'English', dateLocale: 'en' },
  { langLocale: 'ar', langName: 'العربية', dateLocale: 'ar' },
  { langLocale: 'fr', langName: 'Français', dateLocale: 'fr' },
];

export function directionOf(locale: string): 'ltr' | 'rtl' {
  return RTL_LOCALES.has(locale.split('-')[0].toLowerCase()) ? 'rtl' : 'ltr';
}

function storedLanguage(): string | null {
  try {
    return window.localStorage.getItem(STORAGE_KEY);
  } catch {
    return null;
  }
}

function applyToDocument(locale: string) {
  if (typeof document === 'undefined') return;
  document.documentElement.lang = locale;
  document.documentElement.dir = directionOf(locale);
  const dayjsLocale = locale.split('-')[0];
  dayjs.locale(['ar', 'fr'].includes(dayjsLocale) ? dayjsLocale : 'en');
}

export function initI18n(initial?: string) {
  const language = initial ?? storedLanguage() ?? FALLBACK_LANGUAGE;
  if (!i18n.isInitialized) {
    void i18n.use(initReactI18next).init({
      resources: { en: { translation: en }, ar: { translation: ar }, fr: { translation: fr } },
      keySeparator: false,
      lng: language,
      fallbackLng: FALLBACK_LANGUAGE,
      interpolation: { escapeValue: false },
      returnNull: false,
      initImmediate: false,
      showSupportNotice: false,
    });
    i18n.on('languageChanged', applyToDocument);
  }
  applyToDocument(i18n.language ?? language);
  return i18n;
}

/** The visitor's choice, remembered in this browser. */
export function chooseLanguage(locale: string) {
  try {
    window.localStorage.setItem(STORAGE_KEY, locale);
  } catch {
    // private mode: the choice lasts for this page only
  }
  return i18n.changeLanguage(locale);
}

/** Merges the server's dictionaries and switches to its default language
 * unless the visitor already chose one. */
export function applyServerLanguages(languages: Language[]) {
  for (const language of languages) {
    if (language.keyValuePairs && Object.keys(language.keyValuePairs).length > 0) {
      i18n.addResourceBundle(language.langLocale, 'translation', language.keyValuePairs, true, true);
    }
  }
  const preferred = languages.find((language) => language.default);
  if (!storedLanguage() && preferred && preferred.langLocale !== i18n.language) {
    void i18n.changeLanguage(preferred.langLocale);
  }
}

/** The language saved on the signed-in account (the profile's choice, spec
 * §3 User.lang) applies where this browser has not chosen one itself: a new
 * browser, or one whose storage was cleared, still speaks the user's language. */
export function applyUserLanguage(locale: string | null | undefined) {
  if (!locale || storedLanguage() || !i18n.hasResourceBundle(locale, 'translation')) return;
  void chooseLanguage(locale);
}

/** Bundled languages plus the server's, without duplicates. */
export function languageOptions(serverLanguages: Language[] | undefined): LanguageOption[] {
  const options = new Map(bundledLanguages.map((language) => [language.langLocale, language]));
  for (const language of serverLanguages ?? []) {
    options.set(language.langLocale, {
      langLocale: language.langLocale,
      langName: language.langName,
      dateLocale: language.dateLocale,
    });
  }
  return [...options.values()];
}

export { i18n };
