// Issue #34: the parts of a booking's page in the panel, each a card: the
// trip on the map with its addresses, the people on it, the stages in time,
// the fare and payments, and the wallet entries it made.
import PlaceIcon from '@mui/icons-material/Place';
import TripOriginIcon from '@mui/icons-material/TripOrigin';
import { Alert, Box, Card, CardContent, Chip, CircularProgress, List, ListItem, ListItemText, Stack, Typography, useTheme } from '@mui/material';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { MapView } from '@/components/map/map-view';
import { ROUTE_COLOUR, TRACK_COLOUR, type MapMarker } from '@/components/map/types';
import { Line, Ltr } from '@/components/ui/detail-line';
import { ServerErrorAlert } from '@/components/ui/server-error-alert';
import { useSettings } from '@/lib/app-data';
import { distanceIn, formatDateTime, formatMoney, isolateLtr } from '@/lib/format';
import { coordinatesText } from '@/lib/geo';
import { coordsToPoints } from '@/lib/polyline';
import type { Booking, LatLng, User } from '@/types/api';
import { useBookingLedger, useBookingRefunds } from '../api/booking-admin';
import { fareLines, ledgerKind, stageTimes } from '../lib/booking-admin';
import { movedDrop } from '../lib/booking-status';
import { RefundList } from './refund-list';

export function Section({ title, children, testId, action }: { title: string; children: ReactNode; testId: string; action?: ReactNode }) {
  const { t } = useTranslation();
  return (
    <Card variant="outlined" data-testid={testId}>
      <CardContent sx={{ p: { xs: 1.5, sm: 2 }, '&:last-child': { pb: { xs: 1.5, sm: 2 } } }}>
        <Stack direction="row" spacing={1} sx={{ alignItems: 'center', mb: 1.5 }}>
          <Typography variant="subtitle1" component="h2" fontWeight={700} sx={{ flexGrow: 1 }}>
            {t(title)}
          </Typography>
          {action}
        </Stack>
        {children}
      </CardContent>
    </Card>
  );
}

function LegendSwatch({ colour, dashed, label }: { colour: string; dashed?: boolean; label: string }) {
  return (
    <Stack direction="row" spacing={0.75} sx={{ alignItems: 'center' }}>
      <Box sx={{ width: 22, height: 0, borderTop: `${dashed ? 3 : 5}px ${dashed ? 'dashed' : 'solid'} ${colour}` }} />
      <Typography variant="caption">{label}</Typography>
    </Stack>
  );
}

/** The booked route, the path really driven and where the trip ended, with the addresses. */
export function TripSection({ booking, track }: { booking: Booking; track: LatLng[] }) {
  const { t } = useTranslation();
  const settings = useSettings();
  const ended = movedDrop(booking);
  const markers: MapMarker[] = [
    { id: 'pickup', kind: 'pickup', lat: booking.pickup.lat, lng: booking.pickup.lng, label: booking.pickupAddress },
    { id: 'drop', kind: 'drop', lat: booking.drop.lat, lng: booking.drop.lng, label: booking.dropAddress },
  ];
  if (ended) markers.push({ id: 'end', kind: 'end', lat: ended.lat, lng: ended.lng, label: ended.add });
  const distance = distanceIn(booking.distance || booking.estimateDistance, settings);
  return (
    <Section title="booking_page.trip" testId="booking-trip">
      <MapView markers={markers} route={coordsToPoints(booking.coords)} track={track} height={{ xs: 240, md: 340 }} />
      <Stack direction="row" spacing={2} useFlexGap sx={{ flexWrap: 'wrap', mt: 1 }}>
        <LegendSwatch colour={ROUTE_COLOUR} label={t('booking_page.legend_route')} />
        {track.length > 1 && <LegendSwatch colour={TRACK_COLOUR} dashed label={t('booking_page.legend_track')} />}
      </Stack>
      <Stack spacing={1} sx={{ mt: 1.5 }}>
        <AddressLine icon={<TripOriginIcon color="success" fontSize="small" sx={{ mt: 0.3 }} />} label={t('booking_page.pickup')} testId="booking-pickup">
          {booking.pickupAddress}
        </AddressLine>
        <AddressLine icon={<PlaceIcon color="error" fontSize="small" sx={{ mt: 0.3 }} />} label={t('booking_page.drop')} testId="booking-drop">
          {booking.dropAddress}
        </AddressLine>
        {ended && (
          <AddressLine icon={<PlaceIcon fontSize="small" sx={{ mt: 0.3, color: TRACK_COLOUR }} />} label={t('booking_page.ended_at')} testId="booking-ended-at">
            {ended.add || <Ltr>{coordinatesText(ended)}</Ltr>}
          </AddressLine>
        )}
        <Line label={t('table.distance')} testId="booking-distance">
          {t(distance.unit, { value: distance.value })}
        </Line>
      </Stack>
    </Section>
  );
}

/** One address of the trip: its marker's icon, what it is, the address. */
function AddressLine({ icon, label, testId, children }: { icon: ReactNode; label: string; testId: string; children: ReactNode }) {
  return (
    <Stack direction="row" spacing={1} sx={{ alignItems: 'flex-start' }}>
      {icon}
      <Box>
        <Typography variant="caption" color="text.secondary">
          {label}
        </Typography>
        <Typography variant="body2" data-testid={testId}>
          {children}
        </Typography>
      </Box>
    </Stack>
  );
}

function personName(user: User | undefined) {
  return user ? [user.firstName, user.lastName].filter(Boolean).join(' ') || user.email : '';
}

function Contact({ phone, email }: { phone?: string; email?: string }) {
  if (!phone && !email) return null;
  return (
    <Typography variant="body2" color="text.secondary" component="div">
      {phone && <Ltr>{phone}</Ltr>}
      {phone && email && ' · '}
      {email && <Ltr>{email}</Ltr>}
    </Typography>
  );
}

/** The rider, the driver and their fleet, with how to reach them; the car type and the vehicle. */
export function PeopleSection({ booking, people, viewer }: { booking: Booking; people: Map<string, User>; viewer: User | undefined }) {
  const { t } = useTranslation();
  const driver = booking.driver ? people.get(booking.driver) : undefined;
  // A fleet admin is not among the users they may list: they are the fleet.
  const fleet = booking.fleetadmin ? (people.get(booking.fleetadmin) ?? (viewer?.id === booking.fleetadmin ? viewer : undefined)) : undefined;
  const vehicle = [driver?.vehicleMake, driver?.vehicleModel, driver?.vehicleColor].filter(Boolean).join(' ');
  return (
    <Section title="booking_page.people" testId="booking-people">
      <Stack spacing={1.25}>
        <Line label={t('booking_page.rider')} testId="booking-rider">
          <Typography variant="body2" fontWeight={600}>
            {booking.customer_name || '—'}
          </Typography>
          <Contact phone={booking.customer_contact} email={booking.customer_email} />
        </Line>
        <Line label={t('booking_page.driver')} testId="booking-driver">
          {booking.driver ? (
            <>
              <Typography variant="body2" fontWeight={600} data-testid="booking-driver-name">
                {booking.driver_name || personName(driver)}
              </Typography>
              <Contact phone={booking.driver_contact || driver?.mobile} email={driver?.email} />
            </>
          ) : (
            <Typography variant="body2" color="text.secondary">
              {t('booking_page.no_driver')}
            </Typography>
          )}
        </Line>
        <Line label={t('booking_page.fleet')} testId="booking-fleet">
          {fleet ? (
            <>
              <Typography variant="body2" fontWeight={600}>
                {personName(fleet)}
              </Typography>
              <Contact phone={fleet.mobile} email={fleet.email} />
            </>
          ) : (
            <Typography variant="body2" color="text.secondary">
              {booking.driver ? t('booking_page.no_fleet') : '—'}
            </Typography>
          )}
        </Line>
        <Line label={t('booking_page.car_type')} testId="booking-car-type">
          {booking.carType}
        </Line>
        <Line label={t('booking_page.vehicle')} testId="booking-vehicle">
          {booking.vehicle_number || vehicle ? (
            <>
              {booking.vehicle_number && <Ltr>{booking.vehicle_number}</Ltr>}
              {booking.vehicle_number && vehicle && ' · '}
              {vehicle}
            </>
          ) : (
            '—'
          )}
        </Line>
      </Stack>
    </Section>
  );
}

/** When each stage happened, and what the server will do by itself next. */
export function StagesSection({ booking }: { booking: Booking }) {
  const { t } = useTranslation();
  return (
    <Section title="booking_page.stages" testId="booking-stages">
      <Stack spacing={0.75}>
        {stageTimes(booking).map((stage) => (
          <Line key={`${stage.key}-${stage.at}`} label={t(`booking_page.stage.${stage.key}`)} testId={`stage-${stage.key}`} labelWidth={160}>
            <bdi>{formatDateTime(stage.at)}</bdi>
            {stage.planned && (
              <Typography component="span" variant="caption" color="text.secondary">
                {' '}
                {t('booking_page.planned')}
              </Typography>
            )}
          </Line>
        ))}
      </Stack>
    </Section>
  );
}

/** The fare split and the money that moved, line by line. */
export function FareSection({ booking }: { booking: Booking }) {
  const { t } = useTranslation();
  const settings = useSettings();
  return (
    <Section
      title="booking_page.fare"
      testId="booking-fare"
      action={
        booking.payment_mode && (
          <Chip size="small" label={[t(`payment.mode.${booking.payment_mode}`), booking.gateway].filter(Boolean).join(' · ')} data-testid="booking-payment-mode" />
        )
      }
    >
      <Stack spacing={0.5}>
        {fareLines(booking).map((line) => (
          <Stack key={line.key} direction="row" spacing={2} sx={{ justifyContent: 'space-between' }} data-testid={`fare-${line.key}`}>
            <Typography variant="body2" color={line.strong ? 'text.primary' : 'text.secondary'} fontWeight={line.strong ? 700 : 400}>
              {t(`booking_page.fare_line.${line.key}`)}
            </Typography>
            <Typography variant="body2" fontWeight={line.strong ? 700 : 400} data-testid={`fare-${line.key}-amount`}>
              <Ltr>{formatMoney(line.key === 'discount' && line.amount > 0 ? -line.amount : line.amount, settings)}</Ltr>
            </Typography>
          </Stack>
        ))}
      </Stack>
    </Section>
  );
}

/** Every wallet entry the booking made, oldest first. */
export function LedgerSection({ booking }: { booking: Booking }) {
  const { t, i18n } = useTranslation();
  const settings = useSettings();
  const ledger = useBookingLedger(booking.id);
  const entries = ledger.data ?? [];
  return (
    <Section title="booking_page.ledger" testId="booking-ledger">
      {ledger.isPending && <CircularProgress size={24} />}
      {ledger.isError && <ServerErrorAlert error={ledger.error} onRetry={() => void ledger.refetch()} />}
      {ledger.isSuccess && entries.length === 0 && (
        <Typography variant="body2" color="text.secondary" data-testid="ledger-empty">
          {t('booking_page.ledger_empty')}
        </Typography>
      )}
      {entries.length > 0 && (
        <List dense disablePadding>
          {entries.map((entry, index) => {
            const kind = ledgerKind(entry);
            const kindKey = kind ? `booking_page.ledger_kind.${kind}` : null;
            const credit = entry.type === 'Credit';
            return (
              <ListItem
                key={`${entry.txRef}-${entry.user}-${index}`}
                disableGutters
                data-testid="ledger-entry"
                data-kind={kind ?? 'other'}
                data-type={entry.type}
                data-amount={entry.amount}
                secondaryAction={
                  <Typography variant="body2" fontWeight={700} color={credit ? 'success.main' : 'error.main'}>
                    <Ltr>{`${credit ? '+' : '−'}${formatMoney(entry.amount, settings)}`}</Ltr>
                  </Typography>
                }
                sx={{ pr: 11 }}
              >
                <ListItemText
                  primary={`${kindKey && i18n.exists(kindKey) ? t(kindKey) : entry.txRef} · ${entry.userName || t(`usertype.${entry.role}`)}`}
                  secondary={
                    <>
                      <bdi>{formatDateTime(entry.date)}</bdi> · {t(`usertype.${entry.role}`)} · <Ltr>{entry.txRef}</Ltr>
                    </>
                  }
                />
              </ListItem>
            );
          })}
        </List>
      )}
    </Section>
  );
}

/** Issue #37: the booking's refunds, done and declined, and what is left to refund. */
export function RefundsSection({ booking }: { booking: Booking }) {
  const { t } = useTranslation();
  const settings = useSettings();
  const direction = useTheme().direction;
  const refunds = useBookingRefunds(booking.id);
  const items = refunds.data?.items ?? [];
  const totals = refunds.data?.totals;
  return (
    <Section title="booking_page.refunds" testId="booking-refunds">
      {refunds.isPending && <CircularProgress size={24} />}
      {refunds.isError && <ServerErrorAlert error={refunds.error} onRetry={() => void refunds.refetch()} />}
      {totals && (
        <Typography variant="body2" color="text.secondary" sx={{ mb: 0.5 }} data-testid="refunds-totals" data-refundable={totals.refundable}>
          {t('booking_page.refunds_totals', {
            paid: isolateLtr(formatMoney(totals.paid, settings), direction),
            refunded: isolateLtr(formatMoney(totals.refunded, settings), direction),
            left: isolateLtr(formatMoney(totals.refundable, settings), direction),
          })}
        </Typography>
      )}
      {refunds.isSuccess && items.length === 0 && (
        <Typography variant="body2" color="text.secondary" data-testid="refunds-empty">
          {t('booking_page.refunds_empty')}
        </Typography>
      )}
      {items.length > 0 && <RefundList items={items} gateway={booking.gateway} />}
    </Section>
  );
}

/** Why the booking was cancelled, by whom, and what it cost. */
export function CancelledNote({ booking, reason }: { booking: Booking; reason: string }) {
  const { t } = useTranslation();
  const settings = useSettings();
  return (
    <Alert severity="error" data-testid="booking-cancelled">
      {t('booking_page.cancelled_by', { who: booking.cancelledBy ? t(`booking_page.cancelled_by_${booking.cancelledBy}`, { defaultValue: booking.cancelledBy }) : '—', reason: reason || '—' })}
      {(booking.cancellationFee ?? 0) > 0 && ` ${t('trip.cancellation_fee', { amount: formatMoney(booking.cancellationFee, settings) })}`}
      {(booking.cancellationFeeOwed ?? 0) > 0 && ` ${t('booking_page.fee_owed', { amount: formatMoney(booking.cancellationFeeOwed, settings) })}`}
    </Alert>
  );
}
