// MapLibre draws each label glyph alone on an OffscreenCanvas (TinySDF, the
// basemap names no glyph server), and a canvas's text direction is inherited
// from the page: on an Arabic page (dir="rtl") a lone "(" is drawn mirrored,
// so "Bore 3 (tunnel)" read ")tunnel(". MapLibre lays labels out itself, so
// its glyph canvases (2D, read back often) are told left to right.

type GetContext = OffscreenCanvas['getContext'];

let installed = false;

export function drawGlyphsLeftToRight() {
  if (installed || typeof OffscreenCanvas === 'undefined') return;
  installed = true;
  const original: GetContext = OffscreenCanvas.prototype.getContext;
  OffscreenCanvas.prototype.getContext = function (this: OffscreenCanvas, ...args: Parameters<GetContext>) {
    const context = original.apply(this, args);
    const [kind, options] = args;
    if (kind === '2d' && (options as CanvasRenderingContext2DSettings | undefined)?.willReadFrequently && context) {
      (context as OffscreenCanvasRenderingContext2D).direction = 'ltr';
    }
    return context;
  } as GetContext;
}
