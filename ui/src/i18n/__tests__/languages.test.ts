import { describe, expect, it } from 'vitest';
import { applyServerLanguages, applyUserLanguage, chooseLanguage, directionOf, i18n, languageOptions } from '@/i18n';
import ar from '../../../../http/assets/lang/ar.json';
import en from '../../../../http/assets/lang/en.json';
import fr from '../../../../http/assets/lang/fr.json';

const PLURAL = /_(zero|one|two|few|many|other)$/;

function keys(tree: object, prefix = ''): string[] {
  return Object.entries(tree).flatMap(([key, value]) =>
    typeof value === 'object' && value !== null ? keys(value, `${prefix}${key}.`) : [`${prefix}${key}`.replace(PLURAL, '')],
  );
}

describe('the bundled languages', () => {
  it('have an Arabic and a French text for every English key', () => {
    for (const other of [ar, fr]) {
      const missing = [...new Set(keys(en))].filter((key) => !new Set(keys(other)).has(key));
      expect(missing).toEqual([]);
    }
  });

  it('are flat, as the server keeps them', () => {
    for (const dictionary of [en, ar, fr]) {
      expect(Object.values(dictionary).every((text) => typeof text === 'string')).toBe(true);
    }
  });

  it('translate every error code of the server', async () => {
    const server = await import('../../../../http/assets/lang/en.json');
    const codes = Object.keys(server.default).filter((key) => !key.startsWith('sign_in_code'));
    for (const code of codes) {
      expect(i18n.exists(code, { lng: 'en' }), code).toBe(true);
      expect(i18n.exists(code, { lng: 'ar' }), code).toBe(true);
      expect(i18n.exists(code, { lng: 'fr' }), code).toBe(true);
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
      { id: '1', langName: 'Deutsch', langLocale: 'de', dateLocale: 'de', default: true, keyValuePairs: { must_login: 'Bitte melden Sie sich zum Buchen an.' } },
    ]);
    expect(i18n.language).toBe('de');
    expect(i18n.t('must_login')).toBe('Bitte melden Sie sich zum Buchen an.');
    // A key the server's dictionary lacks comes from the fallback language.
    expect(i18n.t('nav.home')).toBe('Home');
    expect(languageOptions([]).map((option) => option.langLocale)).toEqual(['en', 'ar', 'fr']);
    await chooseLanguage('en');
  });

  it("speak the signed-in user's saved language unless this browser chose one", async () => {
    window.localStorage.clear();
    await i18n.changeLanguage('en');
    applyUserLanguage('ar');
    expect(i18n.language).toBe('ar');
    expect(document.documentElement.dir).toBe('rtl');
    // The browser's own choice stands.
    await chooseLanguage('fr');
    applyUserLanguage('ar');
    expect(i18n.language).toBe('fr');
    // A language with no dictionary is not applied.
    window.localStorage.clear();
    applyUserLanguage('xx');
    expect(i18n.language).toBe('fr');
    await chooseLanguage('en');
  });
});
