// Pictures to upload, and checks that a picture the app shows really loaded.
import { deflateSync } from 'node:zlib';
import type { Page } from 'playwright-core';

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k += 1) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes: Buffer) {
  let crc = 0xffffffff;
  for (const byte of bytes) crc = CRC_TABLE[(crc ^ byte) & 0xff] ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer) {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** A small solid-colour PNG, made here so nothing is read from disk or the network. */
export function pngFile(name: string, [red, green, blue]: [number, number, number], size = 24) {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8-bit RGB, no interlace
  const row = Buffer.concat([Buffer.from([0]), Buffer.from(Array.from({ length: size }, () => [red, green, blue]).flat())]);
  const pixels = Buffer.concat(Array.from({ length: size }, () => row));
  const buffer = Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(pixels)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
  return { name, mimeType: 'image/png', buffer };
}

/** Waits until the image with this test id has loaded from the server; its
 * address and natural width (0 would mean a broken picture). */
export async function loadedImage(page: Page, testId: string, timeoutMs = 15_000) {
  const handle = await page.waitForFunction(
    (id) => {
      const image = document.querySelector(`img[data-testid="${id}"]`) as HTMLImageElement | null;
      return image && image.complete && image.naturalWidth > 0 ? { src: image.currentSrc || image.src, naturalWidth: image.naturalWidth } : null;
    },
    testId,
    { timeout: timeoutMs },
  );
  return (await handle.jsonValue()) as { src: string; naturalWidth: number };
}
