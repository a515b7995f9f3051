// A sparkline's SVG path: the values across the width, scaled between their
// lowest and highest; a gap (null) breaks the line; a flat series sits in the middle.

/** Rounded to a tenth of a pixel: a short path string, precise enough. */
const px = (value: number) => Math.round(value * 10) / 10;

export function sparklinePath(values: readonly (number | null)[], width: number, height: number, pad = 1): string {
  const known = values.filter((value): value is number => value !== null && Number.isFinite(value));
  if (known.length === 0) return '';
  const low = Math.min(...known);
  const high = Math.max(...known);
  const step = values.length > 1 ? (width - 2 * pad) / (values.length - 1) : 0;
  const y = (value: number) => (high === low ? height / 2 : pad + (height - 2 * pad) * (1 - (value - low) / (high - low)));
  let path = '';
  let drawing = false;
  values.forEach((value, index) => {
    if (value === null || !Number.isFinite(value)) {
      drawing = false;
      return;
    }
    const x = values.length > 1 ? pad + index * step : width / 2;
    path += `${drawing ? 'L' : 'M'}${px(x)} ${px(y(value))}`;
    drawing = true;
  });
  return path;
}
