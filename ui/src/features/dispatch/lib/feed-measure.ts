// An opt-in hook for the console's benchmark (benches/console, issue #15):
// when a page sets `window.__wayfareMeasure = true` before the app starts,
// the store and the map record a User Timing measure for each `drivers`
// message applied and for the first frame that draws it, which the measure
// script reads with `performance.getEntriesByName`. Off, it costs one
// property read per message; it is off by default because the browser keeps
// every measure until someone clears them, and a console stays open all day.

/** Applying one `drivers` message to the store (main thread). */
export const FEED_MEASURE = 'wayfare:drivers-feed';
/** The first frame after a message: positions computed and the source's setData (main thread). */
export const DRAW_MEASURE = 'wayfare:drivers-draw';

export function measuring(): boolean {
  return typeof window !== 'undefined' && (window as { __wayfareMeasure?: unknown }).__wayfareMeasure === true && typeof performance.measure === 'function';
}

/** Records `name` from `start` (a `performance.now()`) to now, with `detail`. */
export function measureSince(name: string, start: number, detail: Record<string, number>) {
  if (!measuring()) return;
  performance.measure(name, { start, end: performance.now(), detail });
}
