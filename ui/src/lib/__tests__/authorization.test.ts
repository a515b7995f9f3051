import { describe, expect, it } from 'vitest';
import { homePathFor } from '@/lib/auth';
import { BOOKING_PAGE_ROUTE, bookingPagePath, canAccess, PROTECTED_ROUTES } from '@/lib/authorization';

describe('the route table of spec §2', () => {
  it('lets everyone open the public pages', () => {
    for (const path of ['/', '/contact-us', '/about-us', '/privacy-policy', '/login']) {
      expect(canAccess(path, undefined)).toBe(true);
    }
  });

  it('opens bookings and profile to every signed-in user type and to no visitor', () => {
    for (const role of ['rider', 'driver', 'admin', 'fleetadmin'] as const) {
      expect(canAccess('/bookings', role)).toBe(true);
      expect(canAccess('/profile', role)).toBe(true);
    }
    expect(canAccess('/bookings', undefined)).toBe(false);
  });

  it('opens the dashboard, drivers and driver earning to admins and fleet admins only', () => {
    for (const path of ['/dashboard', '/drivers', '/driverearning']) {
      expect(canAccess(path, 'admin')).toBe(true);
      expect(canAccess(path, 'fleetadmin')).toBe(true);
      expect(canAccess(path, 'rider')).toBe(false);
      expect(canAccess(path, 'driver')).toBe(false);
    }
  });

  it('keeps the admin pages for admins', () => {
    const adminOnly = Object.entries(PROTECTED_ROUTES).filter(([, roles]) => roles.length === 1);
    expect(adminOnly.map(([path]) => path)).toHaveLength(14);
    for (const [path] of adminOnly) {
      expect(canAccess(path, 'admin')).toBe(true);
      expect(canAccess(path, 'fleetadmin')).toBe(false);
    }
  });

  it('lets fleet admins read earning reports of their fleet (spec §6, over the §2 table)', () => {
    expect(canAccess('/earningreports', 'fleetadmin')).toBe(true);
    expect(canAccess('/earningreports', 'driver')).toBe(false);
  });

  it("opens a booking's own page and the money owed to admins and fleet admins only (issue #34)", () => {
    for (const path of [BOOKING_PAGE_ROUTE, '/moneyowed']) {
      expect(canAccess(path, 'admin')).toBe(true);
      expect(canAccess(path, 'fleetadmin')).toBe(true);
      expect(canAccess(path, 'rider')).toBe(false);
      expect(canAccess(path, 'driver')).toBe(false);
    }
    expect(bookingPagePath('b 1')).toBe('/bookings/b%201/manage');
  });

  it('refuses paths that are not in the table', () => {
    expect(canAccess('/nowhere', 'admin')).toBe(false);
  });

  it('sends admins and fleet admins to the dashboard, drivers to bookings and riders home after sign-in', () => {
    expect(homePathFor('admin')).toBe('/dashboard');
    expect(homePathFor('fleetadmin')).toBe('/dashboard');
    expect(homePathFor('driver')).toBe('/bookings');
    expect(homePathFor('rider')).toBe('/');
  });
});
