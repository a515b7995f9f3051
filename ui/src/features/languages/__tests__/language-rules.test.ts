import { describe, expect, it } from 'vitest';
import { localeProblem, parseDictionary } from '../lib/language-rules';

describe('the languages screen', () => {
  it('takes a dictionary only as a JSON object of texts (else JSON Error)', () => {
    expect(parseDictionary('{"login.title": "Anmelden"}')).toEqual({ 'login.title': 'Anmelden' });
    expect(parseDictionary('{"login.title": "Anmelden",}')).toBeNull();
    expect(parseDictionary('["a"]')).toBeNull();
    expect(parseDictionary('{"count": 3}')).toBeNull();
    expect(parseDictionary('null')).toBeNull();
  });

  it('takes locales the server takes', () => {
    expect(localeProblem('de')).toBeNull();
    expect(localeProblem('pt-BR')).toBeNull();
    expect(localeProblem('1x')).toBe('languages.locale_rule');
    expect(localeProblem('')).toBe('languages.locale_rule');
  });
});
