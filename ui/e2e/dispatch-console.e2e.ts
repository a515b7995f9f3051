// The live dispatch console (issue #15) against a real server and a busy
// city: a dozen drivers signed in from this process stream their positions
// over the socket (`location` with acks, twice a second) while an admin
// watches /dispatch. The drivers are this file's own, added through the
// admin API round Locust Point: the demo drivers belong to the other browser
// tests, which leave some of them online, on trips or elsewhere. A rider books; the console shows the booking, its
// offer lines and their end, the acceptance in the log and a timeline that
// says the same; a fleet admin sees only their fleet's drivers; the finished
// trip replays. The map is a canvas: what it drew is read from the counts
// and the drivers' centre it writes on its container (lib/map-summary.ts).
import type { Browser, Page } from 'playwright-core';
import { io, type Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiSignIn, call } from './support/api';
import { baseUrl, launchBrowser, newPerson, screenshot, signIn, type Person } from './support/browser';
import { expectNoErrors } from './support/flows';

const POLL = { timeout: 20_000, interval: 250 };
const WAIT = { timeout: 20_000 };
const PHONE = { width: 390, height: 844 };
const stamp = Date.now().toString(36);
/** Drivers this file adds to the city; every other one joins the demo fleet. */
const DRIVERS = 12;
const TICK_MS = 500;
/** Metres a driver goes per tick circling their spot, and driving a trip. */
const WANDER_M = 8;
const DRIVE_M = 60;

// Locust Point, inside the basemap's extract and over a kilometre from the
// demo drivers' spots round downtown (http/src/demo.rs): the drivers nearest
// this pickup, offered first, are this file's.
const HOME = { lat: 39.269, lng: -76.593 };
const trip = {
  pickup: { lat: 39.26999, lng: -76.59182, add: 'Locust Point, Baltimore' },
  drop: { lat: 39.26532, lng: -76.57961, add: 'Fort McHenry, Baltimore' },
  carType: 'Economy',
};

interface LatLng {
  lat: number;
  lng: number;
}

interface BookingJson {
  id: string;
  reference: string;
  status: string;
  otp: number | false;
  driver?: string | null;
}

interface DispatchEntryJson {
  kind: string;
  booking: string;
  drivers?: string[];
  driver?: string;
}

interface UserJson {
  id: string;
  driverActiveStatus: boolean;
  fleetadmin?: string | null;
}

const METRES_PER_DEGREE = 111_195;

/** Waits for a condition outside a test (expect.poll is only for tests). */
async function until(condition: () => boolean, what: string, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`still waiting after ${timeoutMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function moveToward(from: LatLng, to: LatLng, metres: number): LatLng & { heading: number; arrived: boolean } {
  const north = (to.lat - from.lat) * METRES_PER_DEGREE;
  const east = (to.lng - from.lng) * METRES_PER_DEGREE * Math.cos((from.lat * Math.PI) / 180);
  const distance = Math.hypot(north, east);
  const heading = ((Math.atan2(east, north) * 180) / Math.PI + 360) % 360;
  if (distance <= metres) return { ...to, heading, arrived: true };
  const share = metres / distance;
  return { lat: from.lat + (to.lat - from.lat) * share, lng: from.lng + (to.lng - from.lng) * share, heading, arrived: false };
}

/** One simulated driver: a session, a socket, and where the car is. */
class CityDriver {
  socket!: Socket;
  token = '';
  position: LatLng;
  heading = 0;
  /** Where the car drives to instead of circling its spot (a trip's pickup or drop). */
  target: LatLng | null = null;
  /** Set once the server acknowledged a position at the target. */
  arrivedAt: LatLng | null = null;
  /** Bookings offered to this driver and not withdrawn. */
  readonly offers = new Set<string>();
  readonly notifications: { key?: string; body?: string }[] = [];
  acked = 0;
  private angle: number;
  private sending = false;

  constructor(
    readonly id: string,
    readonly email: string,
    readonly inFleet: boolean,
    private readonly spot: LatLng,
    private readonly radiusM: number,
    index: number,
  ) {
    this.angle = index;
    this.position = this.circlePoint();
  }

  private circlePoint(): LatLng {
    const north = this.radiusM * Math.cos(this.angle);
    const east = this.radiusM * Math.sin(this.angle);
    return { lat: this.spot.lat + north / METRES_PER_DEGREE, lng: this.spot.lng + east / (METRES_PER_DEGREE * Math.cos((this.spot.lat * Math.PI) / 180)) };
  }

  async connect(refusals: string[]) {
    this.token = await apiSignIn(this.email);
    await call('POST', '/drivers/me/status', this.token, { driverActiveStatus: true });
    this.socket = io(baseUrl(), { auth: { token: this.token }, transports: ['websocket'], reconnection: false });
    this.socket.on('offer', (offer: { booking: { id: string } }) => this.offers.add(offer.booking.id));
    this.socket.on('offer_withdrawn', (withdrawn: { booking: string }) => this.offers.delete(withdrawn.booking));
    this.socket.on('notification', (notice: { key?: string; body?: string }) => this.notifications.push(notice));
    this.socket.on('disconnect', (reason) => {
      if (reason !== 'io client disconnect') refusals.push(`${this.email} socket dropped: ${reason}`);
    });
    await new Promise<void>((resolve, reject) => {
      this.socket.once('connect', () => resolve());
      this.socket.once('connect_error', reject);
    });
  }

  /** The next position, sent with an ack; a tick is skipped while the last one is unanswered. */
  async tick(refusals: string[]) {
    if (this.sending) return;
    const target = this.target;
    let arrived = false;
    if (target) {
      const next = moveToward(this.position, target, DRIVE_M);
      this.position = { lat: next.lat, lng: next.lng };
      this.heading = next.heading;
      arrived = next.arrived;
    } else {
      const from = this.position;
      this.angle += WANDER_M / this.radiusM;
      this.position = this.circlePoint();
      this.heading = moveToward(from, this.position, 0).heading;
    }
    this.sending = true;
    try {
      const ack = (await this.socket.timeout(5_000).emitWithAck('location', { ...this.position, heading: this.heading, speed: 8, accuracy: 5, at: Date.now() })) as {
        ok?: boolean;
        error?: { code: string };
      };
      if (ack.ok) {
        this.acked++;
        // Circling resumes once the server has the car at its target.
        if (target && arrived && this.target === target) {
          this.target = null;
          this.arrivedAt = target;
        }
      } else refusals.push(`${this.email} location refused: ${ack.error?.code}`);
    } catch (error) {
      refusals.push(`${this.email} location not acknowledged: ${(error as Error).message}`);
    } finally {
      this.sending = false;
    }
  }

  /** Drives to a place and resolves once the server has the car there. */
  async driveTo(place: LatLng) {
    this.arrivedAt = null;
    this.target = place;
    await expect.poll(() => this.arrivedAt !== null, { timeout: 60_000, interval: 250 }).toBe(true);
  }
}

/** The drivers of this file, streaming their positions until stopped. */
class City {
  readonly drivers: CityDriver[] = [];
  /** Refused or unanswered positions, dropped sockets: the test asserts there are none. */
  readonly refusals: string[] = [];
  private timer: ReturnType<typeof setInterval> | null = null;

  start() {
    this.timer = setInterval(() => {
      for (const driver of this.drivers) void driver.tick(this.refusals);
    }, TICK_MS);
  }

  async stop() {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    for (const driver of this.drivers) {
      if (driver.token) await call('POST', '/drivers/me/status', driver.token, { driverActiveStatus: false }).catch(() => undefined);
      driver.socket?.disconnect();
    }
  }

  byId(id: string) {
    return this.drivers.find((driver) => driver.id === id);
  }
}

/** Every driver of the platform, as an admin or a fleet admin may list them. */
async function listDrivers(token: string): Promise<UserJson[]> {
  const drivers: UserJson[] = [];
  let after: string | null = null;
  do {
    const page = (await call('GET', `/users?role=driver&limit=100${after ? `&after=${encodeURIComponent(after)}` : ''}`, token)) as { items: UserJson[]; next: string | null };
    drivers.push(...page.items);
    after = page.next;
  } while (after);
  return drivers;
}

/** What the console's map says it drew. */
async function drawn(page: Page, name: 'drivers' | 'drivers-centre' | 'offer-lines' | 'assigned-lines' | 'route-points' | 'pickups' | 'replay-points') {
  const value = await page.getByTestId('dispatch-map').getAttribute(`data-${name}`);
  return name === 'drivers-centre' ? value : Number(value ?? Number.NaN);
}

async function openConsole(person: Person) {
  await person.page.goto('/dispatch');
  await person.page.getByTestId('dispatch-console').waitFor(WAIT);
  await person.page.locator('[data-testid="dispatch-map"][data-drivers]').waitFor(WAIT);
}

describe('the live dispatch console', () => {
  let browser: Browser;
  let admin: Person;
  let adminToken = '';
  let fleetId = '';
  let riderToken = '';
  const city = new City();
  /** Accounts this file added, deleted at its end: the other files count the demo fleet's drivers. */
  const added: string[] = [];
  let booking: BookingJson;
  let acceptedBy: CityDriver;
  /** Lines from drivers on their way to a pickup before this file's booking (other files' trips). */
  let assignedBefore = 0;

  beforeAll(async () => {
    browser = await launchBrowser();
    adminToken = await apiSignIn('admin@demo.wayfare');
    fleetId = ((await call('GET', '/auth/me', await apiSignIn('fleet@demo.wayfare'))) as { user: { id: string } }).user.id;
    const mobile = (n: number) => `+1443${String(Date.now()).slice(-5)}${String(n).padStart(2, '0')}`;
    const riderEmail = `dispatch-rider-${stamp}@example.com`;
    const rider = (await call('POST', '/users', adminToken, { usertype: 'rider', firstName: 'Console', lastName: `Rider ${stamp}`, email: riderEmail, mobile: mobile(99) })) as UserJson;
    added.push(rider.id);
    riderToken = await apiSignIn(riderEmail);
    for (let n = 0; n < DRIVERS; n++) {
      const email = `dispatch-driver-${stamp}-${n}@example.com`;
      const inFleet = n % 2 === 1;
      const user = (await call('POST', '/users', adminToken, {
        usertype: 'driver',
        firstName: 'Console',
        lastName: `Driver ${n + 1}`,
        email,
        mobile: mobile(n),
        carType: 'Economy',
        vehicleMake: 'Toyota',
        vehicleModel: 'Prius',
        vehicleNumber: `MD-C${String(n).padStart(3, '0')}`,
        ...(inFleet ? { fleetadmin: fleetId } : {}),
      })) as UserJson & { approved: boolean };
      added.push(user.id);
      expect(user.approved).toBe(true);
      // Spots 250 to 700 m round Locust Point, each driver circling theirs.
      const ring = 250 + (n % 4) * 150;
      const spot = moveToward(HOME, { lat: HOME.lat + Math.cos(n * 2.4) * 0.01, lng: HOME.lng + Math.sin(n * 2.4) * 0.013 }, ring);
      const driver = new CityDriver(user.id, email, inFleet, spot, 60 + (n % 3) * 30, n);
      await driver.connect(city.refusals);
      city.drivers.push(driver);
    }
    city.start();
    await until(() => city.drivers.every((driver) => driver.acked > 0), 'a first position of every driver acknowledged');
    admin = await newPerson(browser, 'admin');
    await signIn(admin, 'admin@demo.wayfare');
  });

  afterAll(async () => {
    await city.stop();
    // A trip left half way by a failed test would keep its people from being deleted.
    if (booking && adminToken) await call('POST', `/bookings/${booking.id}/cancel`, adminToken, { reason: 'Other' }).catch(() => undefined);
    for (const id of added) await call('DELETE', `/users/${id}`, adminToken).catch((error: Error) => console.warn(`not deleted: ${error.message}`));
    await browser?.close();
  });

  it('shows every online driver of the city on the map, moving', async () => {
    const { page } = admin;
    await page.getByTestId('panel-menu-dispatch').click();
    await page.waitForURL(/\/dispatch$/);
    await page.locator('[data-testid="dispatch-map"][data-drivers]').waitFor(WAIT);
    const online = (await listDrivers(adminToken)).filter((driver) => driver.driverActiveStatus).length;
    expect(online).toBeGreaterThanOrEqual(DRIVERS);
    await expect.poll(() => drawn(page, 'drivers'), POLL).toBe(online);
    await expect.poll(() => page.getByTestId('dispatch-counts').textContent(), POLL).toContain(`Drivers on the map: ${online} `);
    await expect.poll(() => page.getByTestId('dispatch-socket').textContent(), POLL).toBe('Live');
    // The drivers move: where the map draws them changes from one read to the next.
    const before = await drawn(page, 'drivers-centre');
    expect(before).toMatch(/^-?\d+\.\d{6},-?\d+\.\d{6}$/);
    await expect.poll(() => drawn(page, 'drivers-centre'), POLL).not.toBe(before);
    const later = await drawn(page, 'drivers-centre');
    await expect.poll(() => drawn(page, 'drivers-centre'), POLL).not.toBe(later);
    // The live figures count them too.
    await expect
      .poll(async () => Number(await page.getByTestId('figure-online').getByTestId('figure-value').textContent()), POLL)
      .toBe(online);
  });

  it('shows a booking, its offer lines and their end, the acceptance in the log, and a timeline that says the same', async () => {
    const { page } = admin;
    const pickupsBefore = Number(await drawn(page, 'pickups'));
    const linesBefore = Number(await drawn(page, 'offer-lines'));
    assignedBefore = Number(await drawn(page, 'assigned-lines'));
    booking = (await call('POST', '/bookings', riderToken, { ...trip, bookLater: false })) as BookingJson;
    expect(booking.status).toBe('NEW');

    // The booking's pickup on the map, and its offer to one of this file's
    // drivers when the default policy's batch window closes.
    await expect.poll(() => drawn(page, 'pickups'), POLL).toBe(pickupsBefore + 1);
    await page.locator(`[data-testid="log-entry"][data-kind="offered"][data-booking="${booking.id}"]`).first().waitFor(WAIT);
    const offered = () => city.drivers.filter((driver) => driver.offers.has(booking.id));
    await expect.poll(() => offered().length, POLL).toBeGreaterThan(0);
    const firstOffer = ((await call('GET', `/bookings/${booking.id}/dispatch`, adminToken)) as { items: DispatchEntryJson[] }).items[0];
    expect(firstOffer.kind).toBe('offered');
    // `batch` offers each booking to one driver: one line.
    expect(firstOffer.drivers).toHaveLength(1);
    await expect.poll(() => drawn(page, 'offer-lines'), POLL).toBe(linesBefore + 1);
    await screenshot(page, 'dispatch-console-desktop-en');

    // The driver holding the offer now (a slow screenshot may have seen the
    // first lapse, and the next window offer it to another) accepts it.
    acceptedBy = offered()[0];
    await call('POST', `/bookings/${booking.id}/accept`, acceptedBy.token);
    await expect.poll(() => drawn(page, 'offer-lines'), POLL).toBe(linesBefore);
    await expect.poll(() => drawn(page, 'assigned-lines'), POLL).toBe(assignedBefore + 1);
    const accepted = page.locator(`[data-testid="log-entry"][data-kind="accepted"][data-booking="${booking.id}"]`);
    await accepted.waitFor(WAIT);
    // The log names the driver (read once from the server), not their id.
    const acceptedName = `Console Driver ${city.drivers.indexOf(acceptedBy) + 1}`;
    await expect.poll(() => accepted.textContent(), POLL).toContain(acceptedName);

    // The log entry opens the booking, whose timeline from storage matches.
    await accepted.click();
    const drawer = page.locator(`[data-testid="booking-panel"][data-booking="${booking.id}"]`);
    await drawer.waitFor(WAIT);
    await expect.poll(() => drawer.getByTestId('booking-status').textContent(), POLL).toBe('Accepted');
    // The focused booking's driver is drawn along the road to the pickup, not straight.
    await expect.poll(async () => Number(await drawn(page, 'route-points')), POLL).toBeGreaterThan(2);
    const stored = (await call('GET', `/bookings/${booking.id}/dispatch`, adminToken)) as { items: DispatchEntryJson[] };
    const kinds = stored.items.map((entry) => entry.kind);
    expect(kinds[0]).toBe('offered');
    expect(kinds).toContain('accepted');
    expect(stored.items.find((entry) => entry.kind === 'accepted')?.driver).toBe(acceptedBy.id);
    await expect.poll(async () => drawer.getByTestId('timeline-row').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-kind'))), POLL).toEqual(kinds);
    expect(await drawer.locator(`[data-testid="timeline-offer"][data-driver="${acceptedBy.id}"]`).getAttribute('data-outcome')).toBe('accepted');
    const outcomes = await drawer.getByTestId('timeline-offer').evaluateAll((offers) => offers.map((offer) => offer.getAttribute('data-outcome')));
    expect(outcomes.filter((outcome) => outcome === 'accepted')).toHaveLength(1);
    expect(outcomes.filter((outcome) => outcome === 'pending')).toHaveLength(0);
    await expect.poll(() => drawer.locator('[data-testid="timeline-row"][data-kind="accepted"]').textContent(), POLL).toContain(acceptedName);
  });

  it('sends the accepted driver a message from the booking', async () => {
    const { page } = admin;
    const drawer = page.locator(`[data-testid="booking-panel"][data-booking="${booking.id}"]`);
    await drawer.getByTestId('booking-message-driver').click();
    const dialog = page.getByTestId('driver-dialog');
    expect(await dialog.getByTestId('driver-state').textContent()).toContain('Economy');
    await dialog.getByTestId('driver-message').fill('Rider waits by the monument.');
    await dialog.getByTestId('driver-message-send').click();
    await expect.poll(() => acceptedBy.notifications.some((notice) => notice.key === 'message' && notice.body === 'Rider waits by the monument.'), POLL).toBe(true);
    await dialog.waitFor({ state: 'detached', ...WAIT });
    await drawer.getByTestId('booking-close').click();
  });

  it('shows a fleet admin only the drivers of their fleet', async () => {
    const fleet = await newPerson(browser, 'fleet');
    await signIn(fleet, 'fleet@demo.wayfare');
    await openConsole(fleet);
    const fleetToken = await apiSignIn('fleet@demo.wayfare');
    const members = await listDrivers(fleetToken);
    expect(members.every((driver) => driver.fleetadmin === fleetId)).toBe(true);
    const theirsOnline = members.filter((driver) => driver.driverActiveStatus).length;
    const everyoneOnline = (await listDrivers(adminToken)).filter((driver) => driver.driverActiveStatus).length;
    const ours = city.drivers.filter((driver) => driver.inFleet);
    expect(members.filter((driver) => ours.some((mine) => mine.id === driver.id))).toHaveLength(ours.length);
    expect(theirsOnline).toBeLessThan(everyoneOnline);
    await expect.poll(() => drawn(fleet.page, 'drivers'), POLL).toBe(theirsOnline);
    await expect.poll(() => fleet.page.getByTestId('dispatch-counts').textContent(), POLL).toContain(`Drivers on the map: ${theirsOnline} `);
    // While the admin's console, open all along, still shows everyone.
    expect(await drawn(admin.page, 'drivers')).toBe(everyoneOnline);
    await expect.poll(() => drawn(fleet.page, 'drivers-centre'), POLL).not.toBe(await drawn(fleet.page, 'drivers-centre'));
    expectNoErrors(fleet);
    await fleet.context.close();
  });

  it('replays the finished trip with its progress', async () => {
    // The trip, driven by the simulated car: to the pickup, then the drop.
    await acceptedBy.driveTo(trip.pickup);
    await call('POST', `/bookings/${booking.id}/arrive`, acceptedBy.token);
    await call('POST', `/bookings/${booking.id}/start`, acceptedBy.token, booking.otp === false ? undefined : { otp: booking.otp });
    await acceptedBy.driveTo(trip.drop);
    await call('POST', `/bookings/${booking.id}/reach`, acceptedBy.token);
    await call('POST', `/bookings/${booking.id}/pay`, acceptedBy.token, { payment_mode: 'cash' });
    const rated = (await call('POST', `/bookings/${booking.id}/rate`, riderToken, { rating: 5 })) as BookingJson;
    expect(rated.status).toBe('COMPLETE');
    const tracking = (await call('GET', `/bookings/${booking.id}/tracking`, adminToken)) as { points: unknown[] };
    expect(tracking.points.length).toBeGreaterThan(3);

    const { page } = admin;
    // The finished booking has left the map; its log entry still opens it.
    await expect.poll(() => drawn(page, 'assigned-lines'), POLL).toBe(assignedBefore);
    await page.locator(`[data-testid="log-entry"][data-kind="accepted"][data-booking="${booking.id}"]`).click();
    const drawer = page.locator(`[data-testid="booking-panel"][data-booking="${booking.id}"]`);
    await expect.poll(() => drawer.getByTestId('booking-status').textContent(), POLL).toBe('Complete');
    await drawer.getByTestId('booking-replay').click();
    const replay = drawer.getByTestId('replay');
    await replay.waitFor(WAIT);
    await expect.poll(() => drawn(page, 'replay-points'), POLL).toBe(tracking.points.length);
    const slider = replay.locator('input[type="range"]');
    const start = Number(await slider.getAttribute('aria-valuenow'));
    const end = Number(await slider.getAttribute('aria-valuemax'));
    expect(end).toBeGreaterThan(start);
    const clockAtStart = await replay.getByTestId('replay-clock').textContent();
    await replay.getByTestId('replay-speed-4').click();
    await replay.getByTestId('replay-play').click();
    // Part way, then the whole trip.
    await expect.poll(async () => Number(await slider.getAttribute('aria-valuenow')), POLL).toBeGreaterThan(start);
    await expect.poll(async () => Number(await slider.getAttribute('aria-valuenow')), { timeout: 60_000, interval: 250 }).toBe(end);
    expect(await replay.getByTestId('replay-clock').textContent()).not.toBe(clockAtStart);
    await drawer.getByTestId('booking-close').click();
    await expect.poll(() => drawn(page, 'replay-points'), POLL).toBe(0);
  });

  it('fits a desktop in Arabic, right to left, and a phone', async () => {
    const arabic = await newPerson(browser, 'admin-ar', { locale: 'ar' });
    await signIn(arabic, 'admin@demo.wayfare');
    await arabic.page.evaluate(() => window.localStorage.setItem('wayfare.lang', 'ar'));
    await openConsole(arabic);
    await expect.poll(() => arabic.page.evaluate(() => document.documentElement.dir)).toBe('rtl');
    await expect.poll(() => drawn(arabic.page, 'drivers'), POLL).toBeGreaterThanOrEqual(DRIVERS);
    await screenshot(arabic.page, 'dispatch-console-desktop-ar');
    expectNoErrors(arabic);
    await arabic.context.close();

    const phone = await newPerson(browser, 'admin-phone', { viewport: PHONE });
    await signIn(phone, 'admin@demo.wayfare');
    await openConsole(phone);
    await expect.poll(() => drawn(phone.page, 'drivers'), POLL).toBeGreaterThanOrEqual(DRIVERS);
    // Nothing wider than the phone.
    expect(await phone.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
    await screenshot(phone.page, 'dispatch-console-phone-en');
    expectNoErrors(phone);
    await phone.context.close();
  });

  it('kept every position acknowledged and left no error in the consoles', () => {
    expect(city.refusals).toEqual([]);
    expectNoErrors(admin);
  });
});
