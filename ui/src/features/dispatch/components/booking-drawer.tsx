import CancelIcon from '@mui/icons-material/Cancel';
import CloseIcon from '@mui/icons-material/Close';
import OpenInNewIcon from '@mui/icons-material/OpenInNew';
import PersonAddIcon from '@mui/icons-material/PersonAdd';
import ReplayIcon from '@mui/icons-material/Replay';
import { Box, Button, Chip, CircularProgress, Divider, Drawer, IconButton, Stack, Typography } from '@mui/material';
import { useEffect, useRef, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink } from 'react-router';
import { TimelineView } from '@/components/dispatch/timeline-view';
import { ServerErrorAlert } from '@/components/ui/server-error-alert';
import { useNow } from '@/hooks/use-now';
import { bookingPagePath } from '@/lib/authorization';
import { shortId } from '@/lib/dispatch-entries';
import { durationText } from '@/lib/durations';
import type { Booking, BookingStatus, LatLng } from '@/types/api';
import { useConsoleBooking } from '../api/dispatch';
import { useConsoleTopic } from '../hooks/use-console-topic';
import { isWaiting, secondsLeft, waitingSince } from '../lib/bookings';
import type { ConsoleStore } from '../stores/console-store';
import { ReplayControls } from './replay-controls';

/** What the screen that hosts the console lets it do to a booking: the
 * panel's own assign and cancel dialogs, and the rules for offering them. */
export interface ConsoleActions {
  canAssign: (booking: Booking) => boolean;
  canCancel: (booking: Booking) => boolean;
  assignDialog: (booking: Booking, close: () => void) => ReactNode;
  cancelDialog: (booking: Booking, close: () => void) => ReactNode;
}

/** Trips whose path is over, and so can be replayed. */
const REPLAYABLE: BookingStatus[] = ['REACHED', 'PENDING', 'PAID', 'COMPLETE'];

export const DRAWER_WIDTH = 420;

/** The focused booking: what it is, its offers now, the actions the rules
 * allow, its dispatch timeline, and (finished trips) its replay. */
export function BookingDrawer({
  store,
  booking: id,
  replayAtOnce = false,
  wide,
  actions,
  onClose,
  onDriver,
  onPlace,
}: {
  store: ConsoleStore;
  booking: string | null;
  /** Opened from a link that asked for the replay. */
  replayAtOnce?: boolean;
  wide: boolean;
  actions: ConsoleActions;
  onClose: () => void;
  onDriver: (driver: string) => void;
  /** A booking the map does not show (finished, or not the console's yet): where it was. */
  onPlace: (pickup: LatLng) => void;
}) {
  return (
    <Drawer
      anchor={wide ? 'right' : 'bottom'}
      open={id !== null}
      onClose={onClose}
      variant={wide ? 'persistent' : 'temporary'}
      // Desktop: over the log's column, under the panel's bar; the map stays as wide.
      sx={{ '& .MuiDrawer-paper': wide ? { width: DRAWER_WIDTH, boxSizing: 'border-box', top: 64, height: 'calc(100% - 64px)', boxShadow: 8 } : { maxHeight: '80vh' } }}
      data-testid="booking-drawer"
    >
      {id && (
        <BookingPanel
          key={id}
          store={store}
          id={id}
          replayAtOnce={replayAtOnce}
          actions={actions}
          onClose={onClose}
          onDriver={onDriver}
          onPlace={onPlace}
        />
      )}
    </Drawer>
  );
}

function BookingPanel({
  store,
  id,
  replayAtOnce,
  actions,
  onClose,
  onDriver,
  onPlace,
}: {
  store: ConsoleStore;
  id: string;
  replayAtOnce: boolean;
  actions: ConsoleActions;
  onClose: () => void;
  onDriver: (driver: string) => void;
  onPlace: (pickup: LatLng) => void;
}) {
  const { t } = useTranslation();
  useConsoleTopic(store, 'bookings');
  useConsoleTopic(store, 'names');
  // Booking times and deadlines are the server's.
  const now = useNow(1000) + store.serverOffset;
  const live = store.bookings.get(id);
  const query = useConsoleBooking(id, live?.booking ?? null);
  const booking = query.data ?? live?.booking ?? null;
  const [dialog, setDialog] = useState<'assign' | 'cancel' | null>(null);
  // The map flew to a pickup it knew; one it did not know is flown to once read.
  const placed = useRef(Boolean(live?.booking));
  useEffect(() => {
    if (placed.current || !booking?.pickup) return;
    placed.current = true;
    onPlace(booking.pickup);
  }, [booking, onPlace]);
  const [replaying, setReplaying] = useState(replayAtOnce);
  const words = (ms: number) => {
    const text = durationText(ms);
    return t(text.key, text.values);
  };
  return (
    <Box sx={{ p: 2, overflowY: 'auto' }} data-testid="booking-panel" data-booking={id}>
      <Stack direction="row" spacing={1} sx={{ alignItems: 'center', mb: 1 }}>
        <Typography variant="h6" sx={{ flexGrow: 1 }} noWrap>
          {booking?.reference ?? shortId(id)}
        </Typography>
        {booking && <Chip size="small" label={t(`status.${booking.status}`)} data-testid="booking-status" />}
        <IconButton onClick={onClose} aria-label={t('common.close')} data-testid="booking-close">
          <CloseIcon />
        </IconButton>
      </Stack>
      {query.isPending && !booking && <CircularProgress size={24} />}
      {query.isError && !booking && <ServerErrorAlert error={query.error} onRetry={() => void query.refetch()} />}
      {booking && (
        <Stack spacing={0.5}>
          <Typography variant="body2">
            <strong>{t('dispatch.booking.pickup')}</strong> {booking.pickupAddress || booking.pickup?.add}
          </Typography>
          <Typography variant="body2">
            <strong>{t('dispatch.booking.drop')}</strong> {booking.dropAddress || booking.drop?.add}
          </Typography>
          <Typography variant="body2" color="text.secondary">
            {[booking.carType, booking.customer_name, booking.driver_name].filter(Boolean).join(' · ')}
          </Typography>
          {isWaiting(booking.status) && (
            <Typography variant="body2" data-testid="booking-waited">
              {t('dispatch.booking.waited', { time: words(now - waitingSince(booking)) })}
            </Typography>
          )}
        </Stack>
      )}
      {live && live.offers.length > 0 && (
        <Stack direction="row" spacing={0.5} useFlexGap sx={{ flexWrap: 'wrap', mt: 1 }} data-testid="booking-offers">
          {live.offers.map((offer) => {
            const left = secondsLeft(offer.deadline, now);
            return (
              <Chip
                key={offer.driver}
                size="small"
                color="warning"
                variant="outlined"
                onClick={() => onDriver(offer.driver)}
                label={left === null ? store.directory.label(offer.driver) : t('dispatch.booking.offer', { driver: store.directory.label(offer.driver), seconds: left })}
              />
            );
          })}
        </Stack>
      )}
      {booking && (
        <Stack direction="row" spacing={1} useFlexGap sx={{ flexWrap: 'wrap', my: 1.5 }}>
          {actions.canAssign(booking) && (
            <Button size="small" variant="outlined" startIcon={<PersonAddIcon />} onClick={() => setDialog('assign')} data-testid="booking-assign">
              {t('panel.bookings.assign')}
            </Button>
          )}
          {actions.canCancel(booking) && (
            <Button size="small" color="error" variant="outlined" startIcon={<CancelIcon />} onClick={() => setDialog('cancel')} data-testid="booking-cancel">
              {t('panel.bookings.cancel')}
            </Button>
          )}
          {booking.driver && (
            <Button size="small" variant="outlined" onClick={() => onDriver(booking.driver!)} data-testid="booking-message-driver">
              {t('dispatch.driver.send')}
            </Button>
          )}
          <Button size="small" variant="outlined" startIcon={<OpenInNewIcon />} component={RouterLink} to={bookingPagePath(id)} data-testid="booking-open-page">
            {t('booking_page.open')}
          </Button>
          {REPLAYABLE.includes(booking.status) && (
            <Button size="small" variant={replaying ? 'contained' : 'outlined'} startIcon={<ReplayIcon />} onClick={() => setReplaying(!replaying)} data-testid="booking-replay">
              {t('dispatch.replay.title')}
            </Button>
          )}
        </Stack>
      )}
      {replaying && (
        <Box sx={{ mb: 1.5 }}>
          <ReplayControls store={store} booking={id} />
        </Box>
      )}
      <Divider sx={{ mb: 1.5 }} />
      <Typography variant="subtitle1" sx={{ mb: 1 }}>
        {t('dispatch.timeline.title')}
      </Typography>
      <TimelineView booking={id} since={booking ? waitingSince(booking) : undefined} onDriver={onDriver} driverName={(driver) => store.directory.label(driver)} />
      {booking && dialog === 'assign' && actions.assignDialog(booking, () => setDialog(null))}
      {booking && dialog === 'cancel' && actions.cancelDialog(booking, () => setDialog(null))}
    </Box>
  );
}
