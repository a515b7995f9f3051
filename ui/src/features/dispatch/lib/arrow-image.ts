// The little arrow that turns each driver to its heading, drawn pixel by
// pixel (no canvas needed): white with a dark edge, pointing north.

export const ARROW_SIZE = 20;

type Point = { x: number; y: number };

const side = (a: Point, b: Point, x: number, y: number) => (b.x - a.x) * (y - a.y) - (b.y - a.y) * (x - a.x);

function inTriangle(a: Point, b: Point, c: Point, x: number, y: number) {
  const d1 = side(a, b, x, y);
  const d2 = side(b, c, x, y);
  const d3 = side(c, a, x, y);
  return !((d1 < 0 || d2 < 0 || d3 < 0) && (d1 > 0 || d2 > 0 || d3 > 0));
}

/** RGBA pixels of a size² image, for map.addImage. */
export function arrowPixels(size = ARROW_SIZE): { width: number; height: number; data: Uint8Array } {
  const data = new Uint8Array(size * size * 4);
  const tip = { x: size / 2, y: 2 };
  const left = { x: 4, y: size - 3 };
  const right = { x: size - 4, y: size - 3 };
  const notch = { x: size / 2, y: size * 0.68 };
  // Two triangles either side of the axis: tip, corner, notch.
  const inside = (x: number, y: number) => inTriangle(tip, left, notch, x, y) || inTriangle(tip, notch, right, x, y);
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const offset = (y * size + x) * 4;
      if (inside(x + 0.5, y + 0.5)) {
        data.set([255, 255, 255, 255], offset);
        continue;
      }
      const edge = [-1, 0, 1].some((dy) => [-1, 0, 1].some((dx) => inside(x + 0.5 + dx, y + 0.5 + dy)));
      if (edge) data.set([33, 33, 33, 255], offset);
    }
  }
  return { width: size, height: size, data };
}
