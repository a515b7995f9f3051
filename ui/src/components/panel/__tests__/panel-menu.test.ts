import { describe, expect, it } from 'vitest';
import { inPanelShell, menuEntryOf, PANEL_MENU_WIDTH, panelMenuFor } from '../panel-menu';

const paths = (role: Parameters<typeof panelMenuFor>[0]) => panelMenuFor(role).flatMap((group) => group.items);

describe('the panel menu', () => {
  it('is 240 wide (spec §9)', () => {
    expect(PANEL_MENU_WIDTH).toBe(240);
  });

  it('shows an admin every screen of the spec, grouped as users, wallet and settings', () => {
    expect(paths('admin')).toEqual([
      '/dashboard', '/dispatch', '/sos', '/bookings', '/addbookings',
      '/riders', '/drivers', '/fleetadmins', '/alladmin',
      '/cartypes', '/cancelreasons', '/promos', '/notifications',
      '/earningreports', '/moneyowed', '/driverearning', '/addtowallet', '/withdraws',
      '/appinfo', '/settings', '/paymentsettings', '/languagesetting',
      '/profile',
    ]);
    expect(panelMenuFor('admin').map((group) => group.title).filter(Boolean)).toEqual([
      'panel.group_users',
      'panel.group_wallet',
      'panel.group_settings',
    ]);
  });

  it('shows a fleet admin only the dashboard, live dispatch, SOS, bookings, drivers, earning reports, money owed, driver earning and profile', () => {
    expect(paths('fleetadmin')).toEqual(['/dashboard', '/dispatch', '/sos', '/bookings', '/drivers', '/earningreports', '/moneyowed', '/driverearning', '/profile']);
    // Groups with nothing left for them disappear, headings included.
    expect(panelMenuFor('fleetadmin').map((group) => group.title).filter(Boolean)).toEqual(['panel.group_users', 'panel.group_wallet']);
  });

  it('puts admins and fleet admins in the panel shell, riders and drivers in the site', () => {
    expect(inPanelShell('/bookings', 'admin')).toBe(true);
    expect(inPanelShell('/profile', 'fleetadmin')).toBe(true);
    expect(inPanelShell('/bookings', 'rider')).toBe(false);
    expect(inPanelShell('/profile', 'driver')).toBe(false);
    expect(inPanelShell('/', 'admin')).toBe(false);
    expect(inPanelShell('/about-us', 'admin')).toBe(false);
  });

  it("draws a booking's own page in the shell, under the Bookings entry, and never a rider's bookings", () => {
    expect(inPanelShell('/bookings/0198-abc/manage', 'admin')).toBe(true);
    expect(inPanelShell('/bookings/0198-abc/manage', 'fleetadmin')).toBe(true);
    expect(inPanelShell('/bookings/0198-abc/manage', 'rider')).toBe(false);
    expect(menuEntryOf('/bookings/0198-abc/manage')).toBe('/bookings');
    expect(menuEntryOf('/moneyowed')).toBe('/moneyowed');
    expect(menuEntryOf('/bookings/0198-abc')).toBeNull();
    expect(menuEntryOf('/')).toBeNull();
  });
});
