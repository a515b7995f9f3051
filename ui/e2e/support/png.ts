// Reads a PNG (8-bit RGB or RGBA, not interlaced: what chromium's screenshots
// are) into pixels, with node's zlib only: enough to count colours on a map.
import { inflateSync } from 'node:zlib';

export interface Pixels {
  width: number;
  height: number;
  /** RGB triples, row by row. */
  rgb: Uint8Array;
}

export function readPng(data: Buffer): Pixels {
  let offset = 8;
  let width = 0;
  let height = 0;
  let channels = 0;
  const idat: Buffer[] = [];
  while (offset < data.length) {
    const length = data.readUInt32BE(offset);
    const type = data.toString('latin1', offset + 4, offset + 8);
    const body = data.subarray(offset + 8, offset + 8 + length);
    if (type === 'IHDR') {
      width = body.readUInt32BE(0);
      height = body.readUInt32BE(4);
      const [depth, colour, , , interlace] = body.subarray(8, 13);
      if (depth !== 8 || interlace !== 0 || (colour !== 2 && colour !== 6)) throw new Error(`unsupported PNG (depth ${depth}, colour ${colour})`);
      channels = colour === 6 ? 4 : 3;
    } else if (type === 'IDAT') {
      idat.push(body);
    }
    offset += 12 + length;
  }
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * channels;
  const current = new Uint8Array(stride);
  const previous = new Uint8Array(stride);
  const rgb = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)];
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    for (let x = 0; x < stride; x++) {
      const left = x >= channels ? current[x - channels] : 0;
      const up = previous[x];
      const upLeft = x >= channels ? previous[x - channels] : 0;
      let predictor = 0;
      if (filter === 1) predictor = left;
      else if (filter === 2) predictor = up;
      else if (filter === 3) predictor = (left + up) >> 1;
      else if (filter === 4) {
        const estimate = left + up - upLeft;
        const [a, b, c] = [Math.abs(estimate - left), Math.abs(estimate - up), Math.abs(estimate - upLeft)];
        predictor = a <= b && a <= c ? left : b <= c ? up : upLeft;
      }
      current[x] = (line[x] + predictor) & 0xff;
    }
    for (let x = 0; x < width; x++) rgb.set(current.subarray(x * channels, x * channels + 3), (y * width + x) * 3);
    previous.set(current);
  }
  return { width, height, rgb };
}

/** The share of pixels within `tolerance` (per channel) of a colour like `#aad2e4`. */
export function shareOf(pixels: Pixels, hex: string, tolerance = 6): number {
  const target = [1, 3, 5].map((index) => parseInt(hex.slice(index, index + 2), 16));
  let count = 0;
  for (let index = 0; index < pixels.rgb.length; index += 3) {
    if (target.every((value, channel) => Math.abs(pixels.rgb[index + channel] - value) <= tolerance)) count += 1;
  }
  return count / (pixels.width * pixels.height);
}

/** The share of dark grey pixels (every channel below `limit`, nearly
 * equal): label text on a light map, not the coloured route or markers. */
export function shareDark(pixels: Pixels, limit = 110): number {
  let count = 0;
  for (let index = 0; index < pixels.rgb.length; index += 3) {
    const [red, green, blue] = [pixels.rgb[index], pixels.rgb[index + 1], pixels.rgb[index + 2]];
    if (Math.max(red, green, blue) < limit && Math.max(red, green, blue) - Math.min(red, green, blue) < 25) count += 1;
  }
  return count / (pixels.width * pixels.height);
}
