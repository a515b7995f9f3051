import CancelIcon from '@mui/icons-material/Cancel';
import PersonAddIcon from '@mui/icons-material/PersonAdd';
import UndoIcon from '@mui/icons-material/Undo';
import { Box, Chip, Link, MenuItem, Stack, TextField, Typography } from '@mui/material';
import type { GridColDef } from '@mui/x-data-grid';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink, useNavigate, useSearchParams } from 'react-router';
import { PanelTable, type PanelRowAction } from '@/components/panel/panel-table';
import { notify } from '@/components/ui/notifications/notifications-store';
import { useNow } from '@/hooks/use-now';
import { useSettings } from '@/lib/app-data';
import { useAppTexts, type Texts } from '@/lib/app-texts';
import { BOOKINGS_FILTER_PARAM, bookingPagePath } from '@/lib/authorization';
import { isUnassigned } from '@/lib/booking-state';
import { useCriticalEditsAllowed } from '@/lib/critical-edits';
import { errorText } from '@/lib/server-errors';
import type { Booking, BookingStatus, Role } from '@/types/api';
import { useCancelBooking } from '../api/bookings';
import { BOOKING_SORT_FIELDS, bookingsExportQuery, DEFAULT_BOOKING_SORT, fetchBookingsPage, panelBookingsKey } from '../api/panel-bookings';
import { operatorActions } from '../lib/booking-admin';
import { canAssign, canCancel, INCOMPLETE_BOOKING_REASON, PAYMENT_PENDING_CANCEL_DELAY_MS } from '../lib/booking-status';
import { INITIALLY_HIDDEN, panelBookingColumns, type PanelColumn } from '../lib/panel-booking-columns';
import { AssignDriverDialog } from './assign-driver-dialog';
import { CancelDialog } from './cancel-dialog';
import { DropAddress } from './drop-address';
import { RefundDialog } from './refund-dialog';
import { StatusChip } from './status-chip';

const STATUSES: BookingStatus[] = ['PAYMENT_PENDING', 'NEW', 'ACCEPTED', 'ARRIVED', 'STARTED', 'REACHED', 'PENDING', 'PAID', 'COMPLETE', 'CANCELLED'];

/** The grid's filter values besides '' (all): groups, then each status. */
const FILTERS: readonly string[] = ['active', 'unassigned', ...STATUSES];

/** The filter kept in the address (`?status=unassigned`), so a link opens the
 * grid filtered and a reload or Back keeps it; an unknown value lists all. */
function useStatusFilter() {
  const [params, setParams] = useSearchParams();
  const given = params.get(BOOKINGS_FILTER_PARAM) ?? '';
  const status = FILTERS.includes(given) ? given : '';
  const setStatus = (value: string) =>
    setParams(
      (current) => {
        const next = new URLSearchParams(current);
        if (value) next.set(BOOKINGS_FILTER_PARAM, value);
        else next.delete(BOOKINGS_FILTER_PARAM);
        return next;
      },
      { replace: true },
    );
  return [status, setStatus] as const;
}

/** The row actions of spec §4 for this viewer: cancel and assign (pay now is
 * the rider's, in their own view). Assign does not wait for automatic
 * dispatch to be off (issue #34); refund (issue #37) is the booking page's. */
export function panelActionsFor(booking: Booking, role: Role, criticalEditsAllowed: boolean) {
  return {
    cancel: canCancel(booking, role, criticalEditsAllowed),
    assign: canAssign(booking, role),
    refund: operatorActions(booking, role, criticalEditsAllowed).refund,
  };
}

/** The status, "Unassigned" for a booking no driver has that should have one by
 * now, and "Demo" for the living demo's traffic (issue #35). */
function StatusCell({ booking, now }: { booking: Booking; now: number }) {
  const { t } = useTranslation();
  return (
    <Stack direction="row" spacing={0.5} sx={{ alignItems: 'center', height: '100%' }}>
      <StatusChip status={booking.status} />
      {isUnassigned(booking, now) && <Chip size="small" color="warning" variant="outlined" label={t('booking_page.unassigned')} data-testid="unassigned-chip" />}
      {booking.demo && <Chip size="small" variant="outlined" label={t('bookings.demo')} title={t('bookings.demo_help')} data-testid="demo-chip" />}
    </Stack>
  );
}

/** The booked drop, and under it where the trip really ended when that is more than 200 m away. */
function DropCell({ booking }: { booking: Booking }) {
  return (
    <Box sx={{ display: 'flex', alignItems: 'center', height: '100%', minWidth: 0, lineHeight: 1.3 }}>
      <DropAddress booking={booking} dense />
    </Box>
  );
}

function gridColumn(column: PanelColumn, t: Texts, now: number): GridColDef<Booking> {
  const base: GridColDef<Booking> = {
    field: column.field,
    headerName: t(column.label),
    minWidth: column.kind === 'address' ? 240 : column.kind === 'numeric' ? 120 : column.kind === 'status' ? 150 : 170,
    flex: column.kind === 'address' ? 1 : undefined,
    align: column.kind === 'numeric' ? 'right' : undefined,
    headerAlign: column.kind === 'numeric' ? 'right' : undefined,
    valueGetter: (_value, booking) => column.text(booking, t),
  };
  if (column.kind === 'status') return { ...base, minWidth: 230, renderCell: ({ row }) => <StatusCell booking={row} now={now} /> };
  if (column.field === 'reference') {
    return {
      ...base,
      renderCell: ({ row }) => (
        <Link component={RouterLink} to={bookingPagePath(row.id)} onClick={(event) => event.stopPropagation()} data-testid="booking-link">
          {row.reference}
        </Link>
      ),
    };
  }
  if (column.field === 'dropAddress') return { ...base, renderCell: ({ row }) => <DropCell booking={row} /> };
  if (column.kind === 'image') {
    return {
      ...base,
      minWidth: 110,
      renderCell: ({ value }) =>
        value ? (
          <Link href={String(value)} target="_blank" rel="noopener">
            <Box component="img" src={String(value)} alt={t(column.label)} sx={{ height: 40, width: 56, objectFit: 'cover', borderRadius: 1, verticalAlign: 'middle' }} />
          </Link>
        ) : null,
    };
  }
  return base;
}

/** Spec §2 "Bookings" for admins and fleet admins (the server scopes a fleet
 * admin to their fleet): paged, sorted and searched on the server, live from
 * the socket, with the row actions of spec §4 and export when critical edits
 * are allowed. Issue #34: a row opens the booking's own page; bookings no
 * driver has are tinted and can be listed alone. */
export function PanelBookings({ role }: { role: Role }) {
  const { t, i18n } = useTranslation();
  const settings = useSettings();
  const criticalEdits = useCriticalEditsAllowed();
  const [status, setStatus] = useStatusFilter();
  const [cancelling, setCancelling] = useState<Booking | null>(null);
  const [assigning, setAssigning] = useState<Booking | null>(null);
  const [refunding, setRefunding] = useState<Booking | null>(null);
  const [pendingCancels, setPendingCancels] = useState<ReadonlySet<string>>(new Set());
  const cancel = useCancelBooking();
  const navigate = useNavigate();
  // "Unassigned" turns on for a Book Later booking 15 minutes before its trip.
  const now = useNow(30_000);
  // The headers in the platform's words: a delivery platform's grid speaks of senders and deliveries.
  const texts = useAppTexts().t;
  const columns = useMemo(() => panelBookingColumns(settings, role).map((column) => gridColumn(column, texts, now)), [settings, role, texts, now]);

  const cancelWith = (booking: Booking, reason: string, done?: () => void) =>
    cancel.mutate(
      { id: booking.id, reason },
      {
        onSuccess: () => done?.(),
        onError: (error) => notify({ severity: 'error', message: errorText(error, t, (key) => i18n.exists(key)), translated: true }),
        onSettled: () => setPendingCancels((ids) => new Set([...ids].filter((id) => id !== booking.id))),
      },
    );

  const startCancel = (booking: Booking) => {
    if (booking.status !== 'PAYMENT_PENDING') {
      setCancelling(booking);
      return;
    }
    // Spec §4: an unpaid prepaid booking goes after about 1.5 s, with the fixed reason.
    setPendingCancels((ids) => new Set(ids).add(booking.id));
    setTimeout(() => cancelWith(booking, i18n.t(INCOMPLETE_BOOKING_REASON, { lng: 'en' })), PAYMENT_PENDING_CANCEL_DELAY_MS);
  };

  const actions = (booking: Booking): PanelRowAction[] => {
    const allowed = panelActionsFor(booking, role, criticalEdits);
    const list: PanelRowAction[] = [];
    if (role === 'admin') {
      list.push({
        key: 'cancel',
        label: 'panel.bookings.cancel',
        icon: <CancelIcon />,
        onClick: () => startCancel(booking),
        disabled: !allowed.cancel || pendingCancels.has(booking.id),
        disabledReason: criticalEdits ? 'panel.bookings.cancel_not_now' : 'demo_mode',
      });
      list.push({
        key: 'assign',
        label: 'panel.bookings.assign',
        icon: <PersonAddIcon />,
        onClick: () => setAssigning(booking),
        disabled: !allowed.assign,
        disabledReason: 'panel.bookings.assign_not_now',
      });
      list.push({
        key: 'refund',
        label: 'booking_page.refund',
        icon: <UndoIcon />,
        onClick: () => setRefunding(booking),
        disabled: !allowed.refund,
        disabledReason: 'panel.bookings.refund_not_now',
      });
    }
    return list;
  };

  const statusFilter = (
    <TextField
      select
      size="small"
      label={t('table.status')}
      value={status}
      onChange={(event) => setStatus(event.target.value)}
      sx={{ minWidth: 180 }}
      slotProps={{
        // '' is "all statuses": show its text rather than an empty box.
        select: { displayEmpty: true, SelectDisplayProps: { 'data-testid': 'bookings-status-filter' } as React.HTMLAttributes<HTMLDivElement> },
        inputLabel: { shrink: true },
      }}
    >
      <MenuItem value="">{t('panel.bookings.all_statuses')}</MenuItem>
      <MenuItem value="active">{t('panel.bookings.active_statuses')}</MenuItem>
      <MenuItem value="unassigned" data-testid="bookings-filter-unassigned">
        {t('booking_page.unassigned_filter')}
      </MenuItem>
      {STATUSES.map((name) => (
        <MenuItem key={name} value={name}>
          {t(`status.${name}`)}
        </MenuItem>
      ))}
    </TextField>
  );

  return (
    <>
      {role === 'admin' && settings.autoDispatch && (
        <Typography variant="body2" color="text.secondary" sx={{ mb: 1 }} data-testid="auto-dispatch-note">
          {t('booking_page.auto_dispatch_note')}
        </Typography>
      )}
      <PanelTable<Booking>
        testId="bookings-grid"
        columns={columns}
        search="panel.bookings.search"
        source={{
          mode: 'server',
          queryKey: panelBookingsKey(status),
          fetchPage: (params, signal) => fetchBookingsPage(status, params, signal),
          sortFields: BOOKING_SORT_FIELDS,
          defaultSort: DEFAULT_BOOKING_SORT,
        }}
        actions={role === 'admin' ? actions : undefined}
        exportFile={criticalEdits ? { path: '/bookings', query: bookingsExportQuery(status) } : null}
        toolbar={statusFilter}
        hiddenColumns={INITIALLY_HIDDEN}
        onRowClick={(booking) => navigate(bookingPagePath(booking.id))}
        rowTone={(booking) => (isUnassigned(booking, now) ? 'warning' : null)}
        rowHeight={settings.appcat === 'delivery' ? 56 : undefined}
      />
      <CancelDialog
        open={cancelling !== null}
        busy={cancel.isPending}
        error={null}
        onClose={() => setCancelling(null)}
        onConfirm={(reason) => cancelling && cancelWith(cancelling, reason, () => setCancelling(null))}
      />
      {assigning && <AssignDriverDialog booking={assigning} onClose={() => setAssigning(null)} />}
      {refunding && <RefundDialog booking={refunding} onClose={() => setRefunding(null)} />}
    </>
  );
}
