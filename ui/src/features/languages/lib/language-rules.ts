// The languages screen (spec §2 "/languagesetting", §5): the dictionary is
// edited as JSON text and must parse to an object of texts ('JSON Error').

/** The dictionary from the editor's text, or null when it is not an object of texts. */
export function parseDictionary(text: string): Record<string, string> | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return null;
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return null;
  const entries = Object.entries(parsed as Record<string, unknown>);
  return entries.every(([, value]) => typeof value === 'string') ? (parsed as Record<string, string>) : null;
}

/** A locale the server takes: letters first, then letters, digits, - or _. */
export function localeProblem(locale: string): string | null {
  return /^[A-Za-z][A-Za-z0-9_-]{0,15}$/.test(locale.trim()) ? null : 'languages.locale_rule';
}
