// Issue #34: one booking as the operator sees it, and what they may do to it
// now. Everything on the page is read from the server and kept current by
// the socket: a `booking` event replaces the booking in the cache, and each
// new version makes its ledger, dispatch timeline and track read again.
import ArrowBackIcon from '@mui/icons-material/ArrowBack';
import CancelIcon from '@mui/icons-material/Cancel';
import CreditCardIcon from '@mui/icons-material/CreditCard';
import DoneAllIcon from '@mui/icons-material/DoneAll';
import PaymentsIcon from '@mui/icons-material/Payments';
import PersonAddIcon from '@mui/icons-material/PersonAdd';
import ReplayIcon from '@mui/icons-material/Replay';
import UndoIcon from '@mui/icons-material/Undo';
import { Alert, Box, Button, Chip, CircularProgress, Grid, Stack, useMediaQuery, useTheme } from '@mui/material';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink } from 'react-router';
import { TimelineView } from '@/components/dispatch/timeline-view';
import { PanelPage } from '@/components/panel/panel-page';
import { confirm } from '@/components/ui/confirm-dialog';
import { notify } from '@/components/ui/notifications/notifications-store';
import { ServerErrorAlert } from '@/components/ui/server-error-alert';
import { useNow } from '@/hooks/use-now';
import { useUser } from '@/lib/auth';
import { reasonText } from '@/lib/booking-reason';
import { isUnassigned } from '@/lib/booking-state';
import { useCriticalEditsAllowed } from '@/lib/critical-edits';
import { entryDrivers, shortId } from '@/lib/dispatch-entries';
import { useTimeline } from '@/lib/dispatch-timeline';
import { queryKeys } from '@/lib/query-keys';
import { errorText } from '@/lib/server-errors';
import type { Booking, Role, User } from '@/types/api';
import { useBookingPeople, useCompleteBooking, type SettleMode } from '../api/booking-admin';
import { useBooking, useCancelBooking, useTracking } from '../api/bookings';
import { useSettleWithConfirm } from '../hooks/use-settle';
import { operatorActions, REFUNDABLE } from '../lib/booking-admin';
import { AssignDriverDialog } from './assign-driver-dialog';
import { CancelDialog } from './cancel-dialog';
import { CancelledNote, FareSection, LedgerSection, PeopleSection, RefundsSection, Section, StagesSection, TripSection } from './booking-page-sections';
import { RefundDialog } from './refund-dialog';
import { StatusChip } from './status-chip';

/** The live console, opened on this booking with its trip replaying. */
export function replayPath(id: string) {
  return `/dispatch?booking=${encodeURIComponent(id)}&replay=1`;
}

/** Reads the booking's ledger, refunds, dispatch timeline, track and chat again
 * whenever the booking changes (a socket event or an action's answer); not
 * on the first copy, which they were just read with. */
function useRefreshOnChange(booking: Booking | undefined) {
  const client = useQueryClient();
  const seen = useRef<number | null>(null);
  useEffect(() => {
    if (!booking) return;
    if (seen.current !== null && seen.current !== booking.version) {
      for (const queryKey of [queryKeys.bookingLedger(booking.id), queryKeys.bookingRefunds(booking.id), queryKeys.dispatchTimeline(booking.id), queryKeys.tracking(booking.id), queryKeys.chat(booking.id)]) {
        void client.invalidateQueries({ queryKey, exact: true });
      }
    }
    seen.current = booking.version ?? null;
  }, [booking, client]);
}

function BookingActions({ booking, role }: { booking: Booking; role: Role }) {
  const { t, i18n } = useTranslation();
  const allowed = operatorActions(booking, role, useCriticalEditsAllowed());
  const cancel = useCancelBooking();
  const settle = useSettleWithConfirm();
  const complete = useCompleteBooking();
  const [dialog, setDialog] = useState<'cancel' | 'assign' | 'refund' | null>(null);
  const busy = cancel.isPending || settle.isPending || complete.isPending;
  const done = (message: string) => () => notify({ severity: 'success', message });

  const cancelWith = async (reason: string) => {
    setDialog(null);
    const yes = await confirm({
      title: 'booking_page.cancel_title',
      message: t('booking_page.cancel_message', { reference: booking.reference, reason }),
      confirmLabel: 'panel.bookings.cancel',
      destructive: true,
    });
    if (!yes) return;
    cancel.mutate(
      { id: booking.id, reason },
      {
        onSuccess: done('booking_page.cancelled'),
        // The cancel mutation leaves its errors to its caller: the app's toast.
        onError: (error) => notify({ severity: 'error', message: errorText(error, t, (key) => i18n.exists(key)), translated: true }),
      },
    );
  };

  const settleAs = (mode: SettleMode) => settle.run(booking, mode);

  const completeIt = async () => {
    const yes = await confirm({
      title: 'booking_page.complete_title',
      message: t('booking_page.complete_message', { reference: booking.reference }),
      confirmLabel: 'booking_page.complete',
    });
    if (yes) complete.mutate(booking.id, { onSuccess: done('booking_page.completed') });
  };

  const buttons: ReactNode[] = [];
  if (allowed.assign) {
    buttons.push(
      <Button key="assign" variant="contained" startIcon={<PersonAddIcon />} onClick={() => setDialog('assign')} disabled={busy} data-testid="booking-action-assign">
        {t('panel.bookings.assign')}
      </Button>,
    );
  }
  if (allowed.settle) {
    buttons.push(
      <Button key="card" variant="contained" startIcon={<CreditCardIcon />} onClick={() => void settleAs('card')} disabled={busy} data-testid="booking-action-mark-paid">
        {t('booking_page.settle_card')}
      </Button>,
      <Button key="cash" variant="contained" color="secondary" startIcon={<PaymentsIcon />} onClick={() => void settleAs('cash')} disabled={busy} data-testid="booking-action-settle-cash">
        {t('booking_page.settle_cash')}
      </Button>,
    );
  }
  if (allowed.complete) {
    buttons.push(
      <Button key="complete" variant="contained" color="success" startIcon={<DoneAllIcon />} onClick={() => void completeIt()} disabled={busy} data-testid="booking-action-complete">
        {t('booking_page.complete')}
      </Button>,
    );
  }
  if (allowed.refund) {
    buttons.push(
      <Button key="refund" variant="outlined" startIcon={<UndoIcon />} onClick={() => setDialog('refund')} disabled={busy} data-testid="booking-action-refund">
        {t('booking_page.refund')}
      </Button>,
    );
  }
  if (allowed.replay) {
    buttons.push(
      <Button key="replay" variant="outlined" startIcon={<ReplayIcon />} component={RouterLink} to={replayPath(booking.id)} data-testid="booking-action-replay">
        {t('dispatch.replay.title')}
      </Button>,
    );
  }
  if (allowed.cancel) {
    buttons.push(
      <Button key="cancel" variant="outlined" color="error" startIcon={<CancelIcon />} onClick={() => setDialog('cancel')} disabled={busy} data-testid="booking-action-cancel">
        {t('panel.bookings.cancel')}
      </Button>,
    );
  }
  return (
    <>
      {buttons.length > 0 && (
        <Stack direction="row" spacing={1} useFlexGap sx={{ flexWrap: 'wrap' }} data-testid="booking-actions">
          {buttons}
          {busy && <CircularProgress size={24} sx={{ alignSelf: 'center' }} />}
        </Stack>
      )}
      <CancelDialog open={dialog === 'cancel'} busy={cancel.isPending} error={null} onClose={() => setDialog(null)} onConfirm={(reason) => void cancelWith(reason)} />
      {dialog === 'assign' && <AssignDriverDialog booking={booking} onClose={() => setDialog(null)} />}
      {dialog === 'refund' && <RefundDialog booking={booking} onClose={() => setDialog(null)} />}
    </>
  );
}

function BookingDetails({ booking, role, viewer, chat }: { booking: Booking; role: Role; viewer: User | undefined; chat?: ReactNode }) {
  const { t } = useTranslation();
  const now = useNow(30_000);
  const tracking = useTracking(booking.id, true);
  const timeline = useTimeline(booking.id);
  const track = useMemo(() => (tracking.data?.points ?? []).map((point) => ({ lat: point.lat, lng: point.lng })), [tracking.data]);
  const named = [booking.driver, booking.fleetadmin, ...(timeline.data ?? []).flatMap(entryDrivers)].filter((id): id is string => Boolean(id));
  const accounts = useBookingPeople(named);
  const byId = useMemo(() => new Map((accounts.data ?? []).map((user) => [user.id, user])), [accounts.data]);
  const driverName = (id: string) => {
    const user = byId.get(id);
    return user ? [user.firstName, user.lastName].filter(Boolean).join(' ') || (user.email ?? '') : id === booking.driver && booking.driver_name ? booking.driver_name : shortId(id);
  };
  const unassigned = isUnassigned(booking, now);
  const theme = useTheme();
  const wide = useMediaQuery(theme.breakpoints.up('md'));
  const trip = <TripSection booking={booking} track={track} />;
  const dispatch = (
    <Section title="dispatch.timeline.title" testId="booking-dispatch">
      <TimelineView booking={booking.id} since={booking.searchingSince ?? booking.bookingDate} driverName={driverName} />
    </Section>
  );
  const chatSection = chat && (
    <Section title="booking_page.chat" testId="booking-chat">
      {chat}
    </Section>
  );
  const people = <PeopleSection booking={booking} people={byId} viewer={viewer} />;
  const fare = <FareSection booking={booking} />;
  const stages = <StagesSection booking={booking} />;
  const ledger = <LedgerSection booking={booking} />;
  // Only money that was paid can have gone back.
  const refunds = REFUNDABLE.includes(booking.status) && <RefundsSection booking={booking} />;
  return (
    <Stack spacing={2} data-testid="booking-page" data-booking-id={booking.id} data-status={booking.status} data-reference={booking.reference}>
      <Stack direction="row" spacing={1} useFlexGap sx={{ alignItems: 'center', flexWrap: 'wrap' }}>
        <StatusChip status={booking.status} size="medium" />
        {unassigned && <Chip color="warning" label={t('booking_page.unassigned')} data-testid="booking-unassigned" />}
        {booking.bookLater && <Chip variant="outlined" label={t('booking_page.book_later')} />}
        <Chip variant="outlined" label={booking.carType} />
      </Stack>
      {booking.status === 'CANCELLED' && <CancelledNote booking={booking} reason={reasonText(booking.reason, t)} />}
      {booking.status === 'PENDING' && (
        <Alert severity="warning" data-testid="booking-pending-note">
          {t('booking_page.pending_note')}
        </Alert>
      )}
      <BookingActions booking={booking} role={role} />
      {wide ? (
        <Grid container spacing={2}>
          <Grid size={7}>
            <Stack spacing={2}>
              {trip}
              {dispatch}
              {chatSection}
            </Stack>
          </Grid>
          <Grid size={5}>
            <Stack spacing={2}>
              {people}
              {fare}
              {refunds}
              {stages}
              {ledger}
            </Stack>
          </Grid>
        </Grid>
      ) : (
        // One column: who and how much come before how it was dispatched.
        <Stack spacing={2}>
          {trip}
          {people}
          {fare}
          {refunds}
          {stages}
          {dispatch}
          {ledger}
          {chatSection}
        </Stack>
      )}
    </Stack>
  );
}

/** The panel's page of one booking (`/bookings/:id/manage`). `chat` draws its
 * messages (another feature's, handed in by the route). */
export function BookingPage({ id, chat }: { id: string; chat?: (booking: Booking) => ReactNode }) {
  const { t } = useTranslation();
  const { data: user } = useUser();
  const query = useBooking(id);
  const booking = query.data;
  useRefreshOnChange(booking);
  return (
    <PanelPage
      title="booking_page.title"
      titleValues={{ reference: booking?.reference ?? shortId(id) }}
      actions={
        <Button component={RouterLink} to="/bookings" startIcon={<ArrowBackIcon sx={{ transform: (theme) => (theme.direction === 'rtl' ? 'scaleX(-1)' : undefined) }} />} data-testid="booking-back">
          {t('booking_page.back')}
        </Button>
      }
    >
      {query.isPending && (
        <Box sx={{ py: 4, textAlign: 'center' }}>
          <CircularProgress aria-label={t('common.loading')} />
        </Box>
      )}
      {query.isError && !booking && <ServerErrorAlert error={query.error} onRetry={() => void query.refetch()} />}
      {booking && user && <BookingDetails booking={booking} role={user.usertype} viewer={user} chat={chat?.(booking)} />}
    </PanelPage>
  );
}
