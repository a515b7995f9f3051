import { Box, Card, CardContent, Chip, Stack, Typography } from '@mui/material';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { MapView } from '@/components/map/map-view';
import type { MapMarker } from '@/components/map/types';
import type { Booking, LatLng } from '@/types/api';
import type { LiveDriver } from '@/types/app';
import { useActiveBookings, useLiveDrivers } from '../api/dashboard';

export function driverMarkers(drivers: LiveDriver[]): MapMarker[] {
  return drivers.map((driver) => ({
    id: driver.id,
    kind: driver.available ? 'car' : 'car-busy',
    lat: driver.lat,
    lng: driver.lng,
    label: driver.carType ?? undefined,
    lost: driver.stale === true,
  }));
}

/** Bookings whose rider is still to be picked up: waiting for a driver, or
 * with one on the way. A PAYMENT_PENDING booking is nobody's job yet. */
const TO_PICK_UP = new Set<Booking['status']>(['NEW', 'ACCEPTED', 'ARRIVED']);

export function pickupMarkers(bookings: readonly Booking[]): MapMarker[] {
  return bookings
    .filter((booking) => TO_PICK_UP.has(booking.status) && booking.pickup)
    .map((booking) => ({ id: `pickup-${booking.id}`, kind: 'pickup', lat: booking.pickup.lat, lng: booking.pickup.lng, label: booking.reference }));
}

/**
 * What the dashboard's map opens on: the online drivers and the pickups
 * still to be made (lib/map-frame fits them; with none, the city's centre).
 * The key changes when drivers or pickups appear or all go, so the view is
 * framed again then, not each time a car moves.
 */
export function dashboardFrame(drivers: readonly LatLng[], pickups: readonly LatLng[]) {
  return { points: [...drivers, ...pickups], key: `${drivers.length > 0}-${pickups.length > 0}` };
}

/** Spec §2: a live map of the approved, active drivers with a location (the
 * server's `drivers` feed: every online driver, or the fleet's), and the
 * pickups still to be made; 480 high, car markers 35 by 25. The panel does
 * not ask the browser where the viewer is (issue #34): an admin's own
 * position says nothing about the city. */
export function LiveDriversMap() {
  const { t } = useTranslation();
  const { data: drivers = [] } = useLiveDrivers();
  const { data: bookings = [] } = useActiveBookings();
  const cars = useMemo(() => driverMarkers(drivers), [drivers]);
  const pickups = useMemo(() => pickupMarkers(bookings), [bookings]);
  const markers = useMemo(() => [...cars, ...pickups], [cars, pickups]);
  const frame = useMemo(() => dashboardFrame(cars, pickups), [cars, pickups]);
  const available = drivers.filter((driver) => driver.available).length;
  return (
    <Card variant="outlined" data-testid="live-drivers">
      <CardContent>
        <Stack direction="row" spacing={1} useFlexGap sx={{ mb: 1.5, alignItems: 'center', flexWrap: 'wrap' }}>
          <Typography variant="h6" sx={{ flexGrow: 1 }}>
            {t('panel.dashboard.live_drivers')}
          </Typography>
          <Chip size="small" color="success" label={t('panel.dashboard.available', { count: available })} data-testid="live-available" />
          <Chip size="small" label={t('panel.dashboard.busy', { count: drivers.length - available })} data-testid="live-busy" />
        </Stack>
        <Box>
          <MapView markers={markers} height={480} frame={frame} />
        </Box>
        {drivers.length === 0 && (
          <Typography variant="body2" color="text.secondary" sx={{ mt: 1 }} data-testid="live-none">
            {t('panel.dashboard.no_drivers')}
          </Typography>
        )}
      </CardContent>
    </Card>
  );
}
