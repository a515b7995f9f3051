// Turns the server's OpenAPI document (src/types/openapi.json, kept in step
// with the server by http/tests/openapi_snapshot.rs) into the TypeScript types
// the app imports from '@/types/api' (src/types/api.ts).
//
//   npm run api-types           writes src/types/api.ts
//
// One exported type per component schema, under the schema's own name, plus
// the few names the app reads a schema by (APP_NAMES). Only the subset of
// JSON Schema the server's document uses is understood; anything else fails
// loudly rather than turning into a silent `unknown`.
//
// The types say exactly what the document says: a property it leaves out of
// `required` is optional (`?:`), also where the server in fact always sends
// it (a serde default makes a field optional to read, not to write); the
// app copes with its absence rather than the generator guessing.

import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ui = join(dirname(fileURLToPath(import.meta.url)), '..');
export const DOCUMENT_PATH = join(ui, 'src/types/openapi.json');
export const TYPES_PATH = join(ui, 'src/types/api.ts');

/** Names the app uses for a schema whose own name says how the server builds it. */
export const APP_NAMES = {
  Directions: 'DirectionsResponse',
  Estimate: 'EstimateResponse',
  FareBreakdown: 'Breakdown',
  PlaceSuggestion: 'Suggestion',
  Tracking: 'TrackingResponse',
  Wallet: 'WalletResponse',
};

const HEADER = `// Generated from src/types/openapi.json by scripts/api-types.mjs: do not edit.
// After a change to the server's schemas:
//   WAYFARE_UPDATE_SNAPSHOTS=1 cargo test -p wayfare-http --test openapi_snapshot
//   cd ui && npm run api-types
// Types the document does not describe (socket payloads, screens' own shapes)
// live in src/types/app.ts.
`;

const SUPPORTED = new Set([
  '$ref', 'type', 'enum', 'const', 'oneOf', 'anyOf', 'allOf', 'items', 'properties', 'required',
  'additionalProperties', 'propertyNames', 'description', 'title', 'format', 'default', 'example', 'examples',
  'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'minLength', 'maxLength', 'minItems',
  'maxItems', 'uniqueItems', 'pattern', 'readOnly', 'writeOnly', 'deprecated',
]);

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

function refName(ref) {
  const prefix = '#/components/schemas/';
  if (!ref.startsWith(prefix)) throw new Error(`unsupported $ref ${ref}`);
  return ref.slice(prefix.length);
}

function comment(text, indent) {
  if (!text) return '';
  const lines = String(text).replaceAll('*/', '*\\/').split('\n');
  if (lines.length === 1) return `${indent}/** ${lines[0]} */\n`;
  return `${indent}/**\n${lines.map((line) => `${indent} *${line ? ` ${line}` : ''}`).join('\n')}\n${indent} */\n`;
}

/** A union or intersection member, bracketed where `[]` or `&` would bind wrongly. */
function member(text) {
  let depth = 0;
  for (const character of text) {
    if ('{[(<'.includes(character)) depth += 1;
    else if ('}])>'.includes(character)) depth -= 1;
    else if (depth === 0 && (character === '|' || character === '&')) return `(${text})`;
  }
  return text;
}

function union(parts) {
  const unique = [...new Set(parts)];
  // `null` last reads as "or nothing".
  unique.sort((left, right) => (left === 'null') - (right === 'null'));
  return unique.join(' | ');
}

function literal(value) {
  return typeof value === 'string' ? `'${value.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'` : JSON.stringify(value);
}

function objectType(schema, indent) {
  const required = new Set(schema.required ?? []);
  const inner = `${indent}  `;
  let body = '';
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    const optional = !required.has(name);
    const key = IDENTIFIER.test(name) ? name : literal(name);
    body += comment(property.description, inner);
    body += `${inner}${key}${optional ? '?' : ''}: ${typeOf(property, inner)};\n`;
  }
  const extra = schema.additionalProperties;
  if (extra !== undefined && extra !== false) {
    const value = extra === true ? 'unknown' : typeOf(extra, inner);
    if (!body) return `Record<string, ${value}>`;
    body += `${inner}[key: string]: ${value};\n`;
  }
  if (!body) return 'Record<string, unknown>';
  return `{\n${body}${indent}}`;
}

function typeOf(schema, indent) {
  if (schema === true || (schema && Object.keys(schema).length === 0)) return 'unknown';
  for (const key of Object.keys(schema)) {
    if (!SUPPORTED.has(key)) throw new Error(`unsupported schema keyword ${key} in ${JSON.stringify(schema)}`);
  }
  if (schema.$ref) return refName(schema.$ref);
  if ('const' in schema) return literal(schema.const);
  if (schema.enum) return union(schema.enum.map(literal));
  if (schema.oneOf || schema.anyOf) return union((schema.oneOf ?? schema.anyOf).map((part) => member(typeOf(part, indent))));
  if (schema.allOf) {
    const parts = schema.allOf.map((part) => member(typeOf(part, indent)));
    return parts.join(' & ');
  }
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  return union(
    types.map((type) => {
      switch (type) {
        case 'string':
          return 'string';
        case 'integer':
        case 'number':
          return 'number';
        case 'boolean':
          return 'boolean';
        case 'null':
          return 'null';
        case 'array':
          return `${member(typeOf(schema.items ?? {}, indent))}[]`;
        case 'object':
          return objectType(schema, indent);
        default:
          throw new Error(`unsupported type ${JSON.stringify(type)} in ${JSON.stringify(schema)}`);
      }
    }),
  );
}

function declaration(name, schema) {
  const text = typeOf(schema, '');
  const isObject = text.startsWith('{\n');
  return `${comment(schema.description, '')}${isObject ? `export interface ${name} ${text}` : `export type ${name} = ${text};`}\n`;
}

/** The text of src/types/api.ts for a parsed OpenAPI document. */
export function generateApiTypes(document, { appNames = APP_NAMES } = {}) {
  const schemas = document?.components?.schemas;
  if (!schemas) throw new Error('the document has no components.schemas');
  const names = Object.keys(schemas).sort();
  const declarations = names.map((name) => declaration(name, schemas[name]));
  const aliases = Object.entries(appNames).map(([alias, name]) => {
    if (!schemas[name]) throw new Error(`APP_NAMES.${alias} names ${name}, which the document does not have`);
    if (schemas[alias]) throw new Error(`APP_NAMES.${alias} hides the document's own ${alias}`);
    return `export type ${alias} = ${name};\n`;
  });
  const sections = [HEADER, ...declarations];
  if (aliases.length) sections.push(`// ---- the names the app reads these schemas by\n\n${aliases.join('')}`);
  return sections.join('\n');
}

export function generateFromFile(path = DOCUMENT_PATH) {
  return generateApiTypes(JSON.parse(readFileSync(path, 'utf8')));
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(TYPES_PATH, generateFromFile());
  console.log(`wrote ${TYPES_PATH}`);
}
