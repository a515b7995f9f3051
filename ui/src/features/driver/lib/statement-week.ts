// A statement's ISO week (`2026-W47`, Monday to Sunday) as the days it
// covers. Read from the week's name rather than from its instants: those are
// midnights in the server's reporting offset, which the viewer's time zone
// may move to the day before.

export interface WeekDays {
  year: number;
  week: number;
  /** Local dates (midnight) of the Monday and the Sunday. */
  monday: Date;
  sunday: Date;
}

const DAY_MS = 86_400_000;

/** `null` when the text is not a week. */
export function weekDays(name: string): WeekDays | null {
  const match = /^(\d{4})-W(\d{2})$/.exec(name);
  if (!match) return null;
  const year = Number(match[1]);
  const week = Number(match[2]);
  if (week < 1 || week > 53) return null;
  // Week 1 holds 4 January; its Monday starts it.
  const fourth = Date.UTC(year, 0, 4);
  const weekday = (new Date(fourth).getUTCDay() + 6) % 7;
  const monday = new Date(fourth - weekday * DAY_MS + (week - 1) * 7 * DAY_MS);
  const sunday = new Date(monday.getTime() + 6 * DAY_MS);
  const local = (day: Date) => new Date(day.getUTCFullYear(), day.getUTCMonth(), day.getUTCDate());
  return { year, week, monday: local(monday), sunday: local(sunday) };
}

/** What a week comes to for the driver: the platform owes them (above 0), they owe it (below 0), or square. */
export function balanceKey(balance: number): 'statements.platform_owes' | 'statements.driver_owes' | 'statements.settled' {
  if (balance > 0.000_001) return 'statements.platform_owes';
  if (balance < -0.000_001) return 'statements.driver_owes';
  return 'statements.settled';
}
