import { readFileSync } from 'node:fs';
import { DOCUMENT_PATH, generateApiTypes, generateFromFile, TYPES_PATH } from '../../../scripts/api-types.mjs';

describe('the generated API types', () => {
  it('are what the committed OpenAPI document gives (else run `npm run api-types`)', () => {
    const committed = readFileSync(TYPES_PATH, 'utf8');
    // toBe would print both files; the first differing line says enough.
    const fresh = generateFromFile(DOCUMENT_PATH);
    const freshLines = fresh.split('\n');
    const line = committed.split('\n').findIndex((text, index) => text !== freshLines[index]);
    const stale = committed === fresh ? null : { line: line + 1, committed: committed.split('\n')[line], generated: freshLines[line] };
    expect(stale, 'src/types/api.ts is stale: run `npm run api-types` in ui/ and commit it').toBeNull();
  });

  it('name each schema, with its required and optional fields and its nullable ones', () => {
    const text = generateApiTypes({
      components: {
        schemas: {
          Trip: {
            description: 'A trip.',
            type: 'object',
            required: ['id', 'stops'],
            properties: {
              id: { $ref: '#/components/schemas/TripId' },
              stops: { type: 'array', items: { oneOf: [{ $ref: '#/components/schemas/Stop' }, { type: 'null' }] } },
              note: { type: ['string', 'null'], description: 'Free text.' },
              flags: { type: 'object', additionalProperties: { type: 'boolean', enum: [true] } },
            },
          },
          TripId: { type: 'string', format: 'uuid' },
          Stop: { type: 'string', enum: ['pickup', 'drop'] },
          Shown: { allOf: [{ $ref: '#/components/schemas/Trip' }, { type: 'object', required: ['seen'], properties: { seen: { type: 'boolean' } } }] },
        },
      },
    }, { appNames: { Journey: 'Trip' } });
    expect(text).toContain(
      [
        '/** A trip. */',
        'export interface Trip {',
        '  id: TripId;',
        '  stops: (Stop | null)[];',
        '  /** Free text. */',
        '  note?: string | null;',
        '  flags?: Record<string, true>;',
        '}',
      ].join('\n'),
    );
    expect(text).toContain("export type Stop = 'pickup' | 'drop';");
    expect(text).toContain('export type TripId = string;');
    expect(text).toContain('export type Shown = Trip & {\n  seen: boolean;\n};');
    expect(text).toContain('export type Journey = Trip;');
  });

  it('refuse a schema keyword they do not understand rather than guess', () => {
    expect(() => generateApiTypes({ components: { schemas: { Odd: { type: 'string', contentEncoding: 'base64' } } } })).toThrow(/contentEncoding/);
  });
});
