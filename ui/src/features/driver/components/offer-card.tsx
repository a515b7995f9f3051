import PlaceIcon from '@mui/icons-material/Place';
import TripOriginIcon from '@mui/icons-material/TripOrigin';
import { Box, Button, Card, CardActions, CardContent, Chip, LinearProgress, Stack, Typography } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { useNow } from '@/hooks/use-now';
import { useSettings } from '@/lib/app-data';
import { distanceIn, formatMoney } from '@/lib/format';
import { distanceMeters } from '@/lib/polyline';
import type { LatLng, Offer } from '@/types/api';

/** An incoming booking request: pickup, drop, how far away the pickup is,
 * the trip's distance, fare and the time left to answer. */
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
  const { t } = useTranslation();
  const settings = useSettings();
  const now = useNow(250);
  const { booking, deadline } = offer;
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
