import PlaceIcon from '@mui/icons-material/Place';
import TripOriginIcon from '@mui/icons-material/TripOrigin';
import { Box, Button, Card, CardActions, CardContent, Chip, LinearProgress, Stack, Typography } from '@mui/material';
import { useNow } from '@/hooks/use-now';
import { useSettings } from '@/lib/app-data';
import { useAppTexts } from '@/lib/app-texts';
import { distanceIn, formatMoney } from '@/lib/format';
import { distanceMeters } from '@/lib/polyline';
import type { Booking, LatLng } from '@/types/api';
import type { Offer } from '@/types/app';

/** An incoming booking request: pickup, drop, how far away the pickup is,
 * the trip's distance, fare and the time left to answer; for a parcel, what
 * it is and who receives it, so the driver knows before accepting. */
export function OfferCard({
  offer,
  position,
  busy,
  onAccept,
  onDecline,
}: {
  offer: Offer;
  /** Where this driver is now: the pickup's distance when the server did not say. */
  position?: LatLng | null;
  busy: boolean;
  onAccept: () => void;
  onDecline: () => void;
}) {
  const settings = useSettings();
  const now = useNow(250);
  const { booking, deadline } = offer;
  const { t } = useAppTexts(booking.appcat);
  const secondsLeft = deadline ? Math.max(0, Math.ceil((deadline - now) / 1000)) : null;
  const total = deadline ? Math.max(1, Math.ceil((deadline - (booking.updatedAt || now)) / 1000)) : null;
  const distance = distanceIn(booking.estimateDistance, settings);
  const awayKm = offer.distanceKm ?? (position ? distanceMeters(position, booking.pickup) / 1000 : null);
  const away = awayKm === null ? null : distanceIn(awayKm, settings);
  return (
    <Card
      elevation={4}
      sx={{ borderInlineStart: 6, borderColor: 'secondary.main' }}
      data-testid="offer-card"
      data-booking-id={booking.id}
    >
      {secondsLeft !== null && total !== null && (
        <LinearProgress variant="determinate" value={Math.min(100, (secondsLeft / total) * 100)} color={secondsLeft <= 5 ? 'error' : 'secondary'} />
      )}
      <CardContent>
        <Stack direction="row" alignItems="center" spacing={1} sx={{ mb: 1 }}>
          <Typography variant="h6" fontWeight={800} sx={{ flexGrow: 1 }}>
            {formatMoney(booking.estimate, settings)}
          </Typography>
          <Chip size="small" label={t(distance.unit, { value: distance.value })} />
          {secondsLeft !== null && (
            <Chip
              size="small"
              color={secondsLeft <= 5 ? 'error' : 'default'}
              label={t('driver.seconds_left', { count: secondsLeft })}
              data-testid="offer-countdown"
            />
          )}
        </Stack>
        <Stack spacing={0.75}>
          <Stack direction="row" spacing={1} alignItems="flex-start">
            <TripOriginIcon color="success" fontSize="small" sx={{ mt: 0.3 }} />
            <Typography variant="body2">
              {booking.pickupAddress}
              {away && (
                <Typography component="span" variant="body2" color="text.secondary" data-testid="offer-away">
                  {' · '}
                  {t('driver.away', { distance: t(away.unit, { value: away.value }) })}
                </Typography>
              )}
            </Typography>
          </Stack>
          <Stack direction="row" spacing={1} alignItems="flex-start">
            <PlaceIcon color="error" fontSize="small" sx={{ mt: 0.3 }} />
            <Typography variant="body2">{booking.dropAddress}</Typography>
          </Stack>
        </Stack>
        {booking.appcat === 'delivery' && <ParcelLines booking={booking} />}
        <Box sx={{ mt: 1 }}>
          <Typography variant="caption" color="text.secondary">
            {[booking.carType, booking.customer_name].filter(Boolean).join(' · ')}
          </Typography>
        </Box>
      </CardContent>
      <CardActions sx={{ px: 2, pb: 2 }}>
        <Button variant="outlined" color="inherit" onClick={onDecline} disabled={busy} data-testid="offer-decline">
          {t('driver.decline')}
        </Button>
        <Button variant="contained" onClick={onAccept} disabled={busy || secondsLeft === 0} fullWidth data-testid="offer-accept">
          {t('driver.accept')}
        </Button>
      </CardActions>
    </Card>
  );
}

/** A parcel offer's own lines: the parcel type and option, the recipient and the instructions, each only when given. */
function ParcelLines({ booking }: { booking: Booking }) {
  const { t } = useAppTexts(booking.appcat);
  const recipient = [booking.deliveryPerson, booking.deliveryPersonPhone].map((part) => part?.trim()).filter(Boolean);
  const lines = [
    { id: 'parcel-type', label: t('booking.parcel_type'), value: booking.parcelTypeSelected?.description },
    { id: 'parcel-option', label: t('booking.parcel_option'), value: booking.optionSelected?.description },
    { id: 'recipient', label: t('booking.delivery_person'), value: recipient.length > 0 ? recipient.join(' · ') : undefined },
    { id: 'pickup-instructions', label: t('booking.pickup_instructions'), value: booking.pickUpInstructions?.trim() },
    { id: 'delivery-instructions', label: t('booking.delivery_instructions'), value: booking.deliveryInstructions?.trim() },
  ].filter((line) => Boolean(line.value));
  if (lines.length === 0) return null;
  return (
    <Box component="dl" sx={{ mt: 1.5, mb: 0, display: 'grid', gridTemplateColumns: 'auto 1fr', columnGap: 1.5, rowGap: 0.25 }} data-testid="offer-parcel">
      {lines.map((line) => (
        <Box key={line.id} sx={{ display: 'contents' }}>
          <Typography component="dt" variant="body2" color="text.secondary">
            {line.label}
          </Typography>
          <Typography component="dd" variant="body2" fontWeight={600} sx={{ m: 0, overflowWrap: 'anywhere' }} data-testid={`offer-${line.id}`}>
            {line.value}
          </Typography>
        </Box>
      ))}
    </Box>
  );
}
