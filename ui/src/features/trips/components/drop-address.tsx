import { Stack, Typography } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { coordinatesText } from '@/lib/geo';
import type { Booking } from '@/types/api';
import { movedDrop } from '../lib/booking-status';

/** The booked drop, and where the trip really ended when that is elsewhere. */
export function DropAddress({ booking, dense = false }: { booking: Booking; dense?: boolean }) {
  const { t } = useTranslation();
  const actual = movedDrop(booking);
  return (
    <Stack spacing={dense ? 0 : 0.25}>
      <Typography variant={dense ? 'body2' : 'body1'} data-testid="drop-address">
        {booking.dropAddress}
      </Typography>
      {actual && (
        <Typography variant={dense ? 'caption' : 'body2'} color="text.secondary" data-testid="ended-at">
          {t('trip.ended_at', { place: actual.add || coordinatesText(actual) })}
        </Typography>
      )}
    </Stack>
  );
}
