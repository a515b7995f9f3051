// Every query key of the app in one place, so that the socket bridge writes
// exactly where the queries read. Each feature's query options use these.

export const queryKeys = {
  settings: ['settings'] as const,
  carTypes: ['cartypes'] as const,
  languages: ['languages'] as const,
  me: ['auth', 'me'] as const,
  /** Issue #37: the social sign-in providers the server offers. */
  socialProviders: ['auth', 'oauth', 'providers'] as const,
  bookings: {
    all: ['bookings'] as const,
    list: () => ['bookings', 'list'] as const,
    detail: (id: string) => ['bookings', 'detail', id] as const,
    /** `GET /dispatch/active` for the dashboard's unassigned count (lib/active-bookings). */
    active: ['bookings', 'active'] as const,
  },
  tasks: ['tasks'] as const,
  chat: (bookingId: string) => ['chat', bookingId] as const,
  tracking: (bookingId: string) => ['tracking', bookingId] as const,
  /** A booking's dispatch timeline; the console's `dispatch` events mark it stale. */
  dispatchTimeline: (bookingId: string) => ['dispatch', 'timeline', bookingId] as const,
  /** Issue #34: the wallet entries a booking made, for the panel's booking page. */
  bookingLedger: (bookingId: string) => ['bookings', 'ledger', bookingId] as const,
  /** Issue #37: a booking's refunds, their totals and whether its gateway can take one. */
  bookingRefunds: (bookingId: string) => ['bookings', 'refunds', bookingId] as const,
  /** Issue #37: the weeks the signed-in driver has statements for, with their totals. */
  statementWeeks: ['drivers', 'me', 'statements'] as const,
  /** Issue #39: where riders are expected near the signed-in free driver. */
  driverArea: ['drivers', 'me', 'area'] as const,
  /** Issue #34: unpaid trips and owed cancellation fees. */
  owedReport: ['reports', 'owed'] as const,
  wallet: (userId: string) => ['wallet', userId] as const,
  withdraws: (userId: string) => ['withdraws', userId] as const,
  cancelReasons: ['cancelreasons'] as const,
  paymentProviders: ['payment-providers'] as const,
  /** Issue #37: the panel's payment settings and their change log. */
  paymentGateways: {
    all: ['payment-gateways'] as const,
    list: ['payment-gateways', 'list'] as const,
    changes: ['payment-gateways', 'changes'] as const,
  },
  liveDrivers: ['drivers', 'live'] as const,
  /** Issue #33: the banners' open alerts, the panel's pages, one alert. */
  sos: {
    all: ['sos'] as const,
    open: ['sos', 'open'] as const,
    list: ['sos', 'list'] as const,
    detail: (id: string) => ['sos', 'detail', id] as const,
  },
  basemap: ['geo', 'basemap'] as const,
  dashboard: {
    earnings: ['dashboard', 'earnings'] as const,
  },
  geo: {
    autocomplete: (keyword: string) => ['geo', 'autocomplete', keyword] as const,
    place: (placeId: string) => ['geo', 'place', placeId] as const,
    directions: (from: string, to: string) => ['geo', 'directions', from, to] as const,
  },
};
