import { describe, expect, it } from 'vitest';
import { applyServerLanguages, chooseLanguage, directionOf, i18n, languageOptions } from '@/i18n';
import ar from '@/i18n/locales/ar.json';
import en from '@/i18n/locales/en.json';

const PLURAL = /_(zero|one|two|few|many|other)$/;

function keys(tree: object, prefix = ''): string[] {
  return Object.entries(tree).flatMap(([key, value]) =>
    typeof value === 'object' && value !== null ? keys(value, `${prefix}${key}.`) : [`${prefix}${key}`.replace(PLURAL, '')],
  );
}

describe('the bundled languages', () => {
  it('have an Arabic text for every English key', () => {
    const missing = [...new Set(keys(en))].filter((key) => !new Set(keys(ar)).has(key));
    expect(missing).toEqual([]);
  });

  it('translate every error code of the server', async () => {
    const server = await import('../../../../http/assets/lang/en.json');
    const codes = Object.keys(server.default).filter((key) => !key.startsWith('sign_in_code'));
    for (const code of codes) {
      expect(i18n.exists(code, { lng: 'en' }), code).toBe(true);
      expect(i18n.exists(code, { lng: 'ar' }), code).toBe(true);
    }
  });

  it('write Arabic right to left on the document', async () => {
    await chooseLanguage('ar');
    expect(document.documentElement.dir).toBe('rtl');
    expect(document.documentElement.lang).toBe('ar');
    expect(i18n.t('nav.home')).toBe('الرئيسية');
    await chooseLanguage('en');
    expect(document.documentElement.dir).toBe('ltr');
    expect(directionOf('he-IL')).toBe('rtl');
  });

  it('take the server dictionaries and its default language, falling back to en', async () => {
    window.localStorage.clear();
    applyServerLanguages([
      { id: '1', langName: 'Français', langLocale: 'fr', dateLocale: 'fr', default: true, keyValuePairs: { must_login: 'Connectez-vous pour réserver.' } },
    ]);
    expect(i18n.language).toBe('fr');
    expect(i18n.t('must_login')).toBe('Connectez-vous pour réserver.');
    // A key the server's dictionary lacks comes from the fallback language.
    expect(i18n.t('nav.home')).toBe('Home');
    expect(languageOptions([]).map((option) => option.langLocale)).toEqual(['en', 'ar']);
    await chooseLanguage('en');
  });
});
