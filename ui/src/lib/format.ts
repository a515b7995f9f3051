// Amounts, distances and the chat's date and time formats (spec §9).
import dayjs from 'dayjs';
import type { Settings } from '@/types/api';

type MoneySettings = Pick<Settings, 'symbol' | 'swipe_symbol' | 'decimal'>;

/** The amount rounded to settings.decimal, the symbol before it, or after it
 * when swipe_symbol is set. */
export function formatMoney(amount: number | null | undefined, settings: MoneySettings | undefined) {
  const decimal = settings?.decimal ?? 2;
  const value = Number.isFinite(amount) ? Number(amount) : 0;
  const text = Math.abs(value).toFixed(decimal);
  const sign = value < 0 && Number(text) !== 0 ? '-' : '';
  const symbol = settings?.symbol ?? '';
  return settings?.swipe_symbol ? `${sign}${text} ${symbol}`.trim() : `${sign}${symbol}${text}`;
}

/** A left-to-right run (an amount, a reference) kept whole inside a
 * right-to-left sentence: a translation's `{{amount}}` is plain text, where
 * "$6.00" would otherwise come out as "6.00$". Left as is in a left-to-right
 * language. */
export function isolateLtr(text: string, direction: 'ltr' | 'rtl') {
  return direction === 'rtl' ? `\u2066${text}\u2069` : text;
}

export const KM_PER_MILE = 1.609344;

/** Kilometres, or miles when convert_to_mile is on; the unit is a translation key. */
export function distanceIn(km: number, settings: Pick<Settings, 'convert_to_mile'> | undefined) {
  const miles = Boolean(settings?.convert_to_mile);
  const value = miles ? km / KM_PER_MILE : km;
  return { value: Math.round(value * 10) / 10, unit: miles ? 'units.mi' : 'units.km' };
}

const pad = (value: number, width = 2) => String(value).padStart(width, '0');

/** Spec §9: MM:DD:YYYY, zero-padded, in the viewer's time zone. */
export function chatDate(at: number) {
  const date = new Date(at);
  return `${pad(date.getMonth() + 1)}:${pad(date.getDate())}:${pad(date.getFullYear(), 4)}`;
}

/** Spec §9: HH:MM on a 24-hour clock, zero-padded. */
export function chatTime(at: number) {
  const date = new Date(at);
  return `${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

export function formatDateTime(at: number | null | undefined) {
  if (!at) return '';
  return dayjs(at).format('YYYY-MM-DD HH:mm');
}

/** Seconds as hours and minutes, for the `units.duration` text (`units.minutes` under an hour). */
export function durationParts(totalSeconds: number) {
  const minutes = Math.max(0, Math.round(totalSeconds / 60));
  return { hours: Math.floor(minutes / 60), minutes: minutes % 60 };
}

export function durationKey(totalSeconds: number) {
  const parts = durationParts(totalSeconds);
  return { key: parts.hours > 0 ? 'units.duration' : 'units.minutes', values: parts };
}

/** A running clock of how long something has lasted: m:ss, or h:mm:ss past an hour. */
export function formatElapsed(milliseconds: number) {
  const seconds = Math.max(0, Math.floor(milliseconds / 1000));
  const hours = Math.floor(seconds / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  const rest = pad(seconds % 60);
  return hours > 0 ? `${hours}:${pad(minutes)}:${rest}` : `${minutes}:${rest}`;
}

/** A moment as the time of day (HH:mm) when it is today, else with its date. */
export function formatTimeOfDay(at: number, now = Date.now()) {
  return dayjs(at).isSame(now, 'day') ? dayjs(at).format('HH:mm') : formatDateTime(at);
}
