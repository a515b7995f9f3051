import { Box, Card, CardContent, Chip, Stack, Typography } from '@mui/material';
import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { MapView } from '@/components/map/map-view';
import type { MapMarker } from '@/components/map/types';
import type { LatLng, LiveDriver } from '@/types/api';
import { useLiveDrivers } from '../api/dashboard';

type Position = { state: 'asking' } | { state: 'known'; at: LatLng } | { state: 'unavailable' };

/** The browser's position: the map starts there when no driver is online,
 * and spec §2 asks for a red prompt when it is unavailable. */
function useBrowserPosition(): Position {
  const [position, setPosition] = useState<Position>({ state: 'asking' });
  useEffect(() => {
    if (!('geolocation' in navigator)) {
      setPosition({ state: 'unavailable' });
      return;
    }
    let live = true;
    navigator.geolocation.getCurrentPosition(
      (found) => live && setPosition({ state: 'known', at: { lat: found.coords.latitude, lng: found.coords.longitude } }),
      (error) => {
        console.warn('browser position unavailable:', error.message);
        if (live) setPosition({ state: 'unavailable' });
      },
      { maximumAge: 60_000, timeout: 10_000 },
    );
    return () => {
      live = false;
    };
  }, []);
  return position;
}

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

/** Spec §2: a live map of the approved, active drivers with a location (the
 * server's `drivers` feed: every online driver, or the fleet's), zoom 10,
 * 480 high, car markers 35 by 25. */
export function LiveDriversMap() {
  const { t } = useTranslation();
  const { data: drivers = [] } = useLiveDrivers();
  const position = useBrowserPosition();
  const markers = useMemo(() => driverMarkers(drivers), [drivers]);
  const available = drivers.filter((driver) => driver.available).length;
  // With nobody online the map still has a place to show: the viewer's own.
  const shown = markers.length === 0 && position.state === 'known' ? [{ id: 'me', kind: 'me' as const, ...position.at }] : markers;
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
        {position.state === 'unavailable' && (
          <Typography color="error" variant="body2" sx={{ mb: 1 }} data-testid="allow-location">
            {t('allow_location')}
          </Typography>
        )}
        <Box>
          <MapView markers={shown} height={480} />
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
