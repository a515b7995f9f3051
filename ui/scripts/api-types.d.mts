// Types of scripts/api-types.mjs for the tests that import it.
export const DOCUMENT_PATH: string;
export const TYPES_PATH: string;
export const APP_NAMES: Record<string, string>;
export function generateApiTypes(document: unknown, options?: { appNames?: Record<string, string> }): string;
export function generateFromFile(path?: string): string;
