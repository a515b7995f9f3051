import { Alert, Box, Chip, Paper, Skeleton, Stack, Tab, Tabs, Typography, useMediaQuery, useTheme } from '@mui/material';
import { useQuery } from '@tanstack/react-query';
import { useAtomValue } from 'jotai';
import { lazy, Suspense, useCallback, useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { basemapQueryOptions } from '@/components/map/basemap';
import { ATTRIBUTION } from '@/components/map/types';
import { ServerErrorAlert } from '@/components/ui/server-error-alert';
import type { DispatchEntry } from '@/lib/dispatch-entries';
import { socketStatusAtom } from '@/lib/socket';
import { readDrivers } from '../api/dispatch';
import { useConsoleFeed } from '../hooks/use-console-feed';
import { useConsoleTopic } from '../hooks/use-console-topic';
import { useFocusedPickupRoute } from '../hooks/use-pickup-route';
import { focusPoints } from '../lib/framing';
import { DEFAULT_HEX_RESOLUTION } from '../lib/types';
import { ConsoleStore } from '../stores/console-store';
import { BookingDrawer, type ConsoleActions } from './booking-drawer';
import type { FocusTarget } from './dispatch-map';
import { DriverMessageDialog } from './driver-message-dialog';
import { EventLog } from './event-log';
import { FiguresStrip } from './figures-strip';
import { HexControls, MapLegend } from './map-controls';
import { UnassignedList } from './unassigned-list';
import { hasWebGL } from '@/components/map/webgl';

const DispatchMap = lazy(() => import('./dispatch-map'));

const LOG_WIDTH = 380;
const MAP_HEIGHT = { xs: '55vh', md: 'calc(100vh - 300px)' };

/** The map, once the basemap's style is known (the server's OpenStreetMap
 * extract, else the offline style); a note where the browser has no WebGL. */
function ConsoleMap(props: Omit<React.ComponentProps<typeof DispatchMap>, 'mapStyle' | 'height'>) {
  const { t } = useTranslation();
  const webgl = useMemo(hasWebGL, []);
  const named = import.meta.env.VITE_MAP_STYLE_URL || undefined;
  const basemap = useQuery({ ...basemapQueryOptions(), enabled: webgl && !named });
  const skeleton = <Skeleton variant="rounded" sx={{ height: MAP_HEIGHT }} />;
  if (!webgl) {
    return (
      <Box sx={{ height: MAP_HEIGHT, position: 'relative', bgcolor: '#e9eee9', borderRadius: 2, p: 2 }} data-testid="dispatch-map" data-renderer="none">
        <Alert severity="warning">{t('dispatch.no_webgl')}</Alert>
        <Typography variant="caption" sx={{ position: 'absolute', bottom: 4, insetInlineEnd: 8 }}>
          {ATTRIBUTION}
        </Typography>
      </Box>
    );
  }
  if (!named && basemap.isPending) return skeleton;
  return (
    <Suspense fallback={skeleton}>
      <DispatchMap {...props} height={MAP_HEIGHT} mapStyle={named ?? basemap.data ?? undefined} />
    </Suspense>
  );
}

function ConnectionChip() {
  const { t } = useTranslation();
  const status = useAtomValue(socketStatusAtom);
  return <Chip size="small" color={status === 'connected' ? 'success' : 'warning'} label={t(`dispatch.socket.${status}`)} data-testid="dispatch-socket" />;
}

/** Draws the focused booking's road to its pickup (a component of its own:
 * it re-renders with the bookings, the console does not). */
function FocusedRoute({ store, focused }: { store: ConsoleStore; focused: string | null }) {
  useFocusedPickupRoute(store, focused);
  return null;
}

/** Bookings the console knows (a log entry may name one before it is read). */
function knownBookings(store: ConsoleStore) {
  let count = 0;
  for (const record of store.bookings.values()) if (record.booking) count++;
  return count;
}

function DriverCount({ store }: { store: ConsoleStore }) {
  const { t } = useTranslation();
  useConsoleTopic(store, 'drivers');
  useConsoleTopic(store, 'bookings');
  return (
    <Typography variant="body2" color="text.secondary" data-testid="dispatch-counts">
      {t('dispatch.counts', { drivers: store.tracks.size, bookings: knownBookings(store) })}
    </Typography>
  );
}

/**
 * The live dispatch console (issue #15): the figures, the map of drivers,
 * pickups, offers and supply and demand, the event log, and the focused
 * booking's timeline, actions and replay. Desktop: map with the log beside
 * it and the booking in a side drawer; phone: the map, then tabs, and the
 * booking in a bottom drawer.
 */
export function DispatchConsole({
  isAdmin,
  actions,
  initialFocus,
}: {
  isAdmin: boolean;
  actions: ConsoleActions;
  /** A booking to open at once, its trip's replay started when `replay`. */
  initialFocus?: { booking: string; replay: boolean };
}) {
  const { t } = useTranslation();
  const theme = useTheme();
  const wide = useMediaQuery(theme.breakpoints.up('md'));
  const [store] = useState(() => new ConsoleStore(undefined, readDrivers));
  const [resolution, setResolution] = useState(DEFAULT_HEX_RESOLUTION);
  const [showHexes, setShowHexes] = useState(true);
  const [focused, setFocused] = useState<string | null>(initialFocus?.booking ?? null);
  const [focusTarget, setFocusTarget] = useState<FocusTarget | null>(null);
  const [driver, setDriver] = useState<string | null>(null);
  const [tab, setTab] = useState(0);
  const { active, resolutionState } = useConsoleFeed(store, resolution);

  useEffect(() => () => store.dispose(), [store]);

  const focusBooking = useCallback(
    (booking: string) => {
      setFocused(booking);
      // Its pickup and its driver (or the drivers it is offered to), framed.
      const points = focusPoints(store.bookings.get(booking), store.locate);
      if (points.length > 0) setFocusTarget({ points, key: Date.now() });
    },
    [store],
  );
  const place = useCallback((pickup: { lat: number; lng: number }) => setFocusTarget({ points: [{ lat: pickup.lat, lng: pickup.lng }], key: Date.now() }), []);
  const focusEntry = useCallback((entry: DispatchEntry) => focusBooking(entry.booking), [focusBooking]);
  const countdown = useCallback((seconds: number) => t('dispatch.countdown', { seconds }), [t]);

  const log = <EventLog store={store} isAdmin={isAdmin} onFocus={focusEntry} />;
  const unassigned = <UnassignedList store={store} focused={focused} onFocus={focusBooking} />;
  return (
    <Stack spacing={1.5} data-testid="dispatch-console">
      <FiguresStrip store={store} />
      <FocusedRoute store={store} focused={focused} />
      {active.isError && <ServerErrorAlert error={active.error} onRetry={() => void active.refetch()} />}
      <Stack direction="row" spacing={1.5} useFlexGap sx={{ alignItems: 'center', flexWrap: 'wrap' }}>
        <ConnectionChip />
        <DriverCount store={store} />
        <Box sx={{ flexGrow: 1 }} />
        <HexControls
          showHexes={showHexes}
          onShowHexes={setShowHexes}
          resolution={resolution}
          onResolution={setResolution}
          refused={resolutionState.state === 'refused' ? resolutionState.code : null}
        />
      </Stack>
      <Stack direction={{ xs: 'column', md: 'row' }} spacing={1.5}>
        <Box sx={{ flex: 1, minWidth: 0 }}>
          <ConsoleMap
            store={store}
            showHexes={showHexes}
            focusedBooking={focused}
            focusTarget={focusTarget}
            onBooking={focusBooking}
            onDriver={setDriver}
            countdown={countdown}
          />
        </Box>
        {wide ? (
          <Paper variant="outlined" sx={{ width: LOG_WIDTH, flexShrink: 0, p: 1.5, height: MAP_HEIGHT.md, display: 'flex', flexDirection: 'column', gap: 1.5 }}>
            <Box sx={{ maxHeight: '38%', minHeight: 0, display: 'flex', flexDirection: 'column' }}>{unassigned}</Box>
            <Box sx={{ flex: 1, minHeight: 0 }}>{log}</Box>
          </Paper>
        ) : (
          <Box>
            <Tabs value={tab} onChange={(_event, value: number) => setTab(value)} variant="fullWidth">
              <Tab label={t('dispatch.tab.log')} data-testid="dispatch-tab-log" />
              <Tab label={t('dispatch.tab.unassigned')} data-testid="dispatch-tab-unassigned" />
              <Tab label={t('dispatch.tab.legend')} data-testid="dispatch-tab-legend" />
            </Tabs>
            <Box sx={{ pt: 1.5 }}>{tab === 0 ? log : tab === 1 ? unassigned : <MapLegend />}</Box>
          </Box>
        )}
      </Stack>
      {wide && <MapLegend />}
      <BookingDrawer
        store={store}
        booking={focused}
        replayAtOnce={initialFocus?.replay === true && focused === initialFocus.booking}
        wide={wide}
        actions={actions}
        onClose={() => setFocused(null)}
        onDriver={setDriver}
        onPlace={place}
      />
      {driver && <DriverMessageDialog store={store} driver={driver} onClose={() => setDriver(null)} />}
    </Stack>
  );
}
