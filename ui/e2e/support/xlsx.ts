// Reads the first worksheet of an XLSX file (a zip of XML parts) into rows of
// text, with node's zlib only: enough to check what an export holds.
import { inflateRawSync } from 'node:zlib';

/** The zip's files by name (stored or deflated entries, as every XLSX writer makes them). */
function unzip(data: Buffer): Map<string, Buffer> {
  // The end-of-central-directory record is in the last 64 KiB + 22 bytes.
  let end = data.length - 22;
  while (end >= 0 && data.readUInt32LE(end) !== 0x06054b50) end -= 1;
  if (end < 0) throw new Error('not a zip file');
  const count = data.readUInt16LE(end + 10);
  let entry = data.readUInt32LE(end + 16);
  const files = new Map<string, Buffer>();
  for (let index = 0; index < count; index++) {
    if (data.readUInt32LE(entry) !== 0x02014b50) throw new Error('broken central directory');
    const method = data.readUInt16LE(entry + 10);
    const compressedSize = data.readUInt32LE(entry + 20);
    const nameLength = data.readUInt16LE(entry + 28);
    const extraLength = data.readUInt16LE(entry + 30);
    const commentLength = data.readUInt16LE(entry + 32);
    const local = data.readUInt32LE(entry + 42);
    const name = data.toString('utf8', entry + 46, entry + 46 + nameLength);
    const start = local + 30 + data.readUInt16LE(local + 26) + data.readUInt16LE(local + 28);
    const raw = data.subarray(start, start + compressedSize);
    files.set(name, method === 0 ? raw : inflateRawSync(raw));
    entry += 46 + nameLength + extraLength + commentLength;
  }
  return files;
}

const decode = (text: string) =>
  text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&amp;/g, '&');

/** Column letters of a cell reference (`AB12` → 27, zero-based). */
function columnIndex(reference: string) {
  let index = 0;
  for (const letter of reference.replace(/\d+$/, '')) index = index * 26 + (letter.charCodeAt(0) - 64);
  return index - 1;
}

/** The first worksheet's rows, each cell as its text (numbers as written). */
export function readXlsx(data: Buffer): string[][] {
  const files = unzip(data);
  const shared = [...(files.get('xl/sharedStrings.xml')?.toString('utf8') ?? '').matchAll(/<si>([\s\S]*?)<\/si>/g)].map((match) =>
    decode([...match[1].matchAll(/<t[^>]*>([\s\S]*?)<\/t>/g)].map((text) => text[1]).join('')),
  );
  const sheetName = [...files.keys()].filter((name) => /^xl\/worksheets\/sheet\d+\.xml$/.test(name)).sort()[0];
  if (!sheetName) throw new Error('no worksheet');
  const sheet = files.get(sheetName)!.toString('utf8');
  return [...sheet.matchAll(/<row[^>]*>([\s\S]*?)<\/row>/g)].map((row) => {
    const cells: string[] = [];
    for (const cell of row[1].matchAll(/<c r="([A-Z]+\d+)"([^>]*?)(?:\/>|>([\s\S]*?)<\/c>)/g)) {
      const [, reference, attributes, body = ''] = cell;
      const value = /<v>([\s\S]*?)<\/v>/.exec(body)?.[1] ?? /<t[^>]*>([\s\S]*?)<\/t>/.exec(body)?.[1] ?? '';
      cells[columnIndex(reference)] = / t="s"/.test(attributes) ? shared[Number(value)] : decode(value);
    }
    return Array.from(cells, (text) => text ?? '');
  });
}
