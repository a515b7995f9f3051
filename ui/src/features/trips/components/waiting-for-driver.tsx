import { Alert, Button, Stack, Typography } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { useNow } from '@/hooks/use-now';
import { formatDateTime, formatElapsed, formatTimeOfDay } from '@/lib/format';
import type { Booking } from '@/types/api';
import { autoCancelAt, isScheduledAhead, searchStartedAt } from '../lib/booking-status';

/** A booking no driver has taken yet: how long the rider has waited (a Book
 * Later booking before its search: its date), when the search ends, and the
 * free cancel. */
export function WaitingForDriver({ booking, onCancel, busy = false }: { booking: Booking; onCancel?: () => void; busy?: boolean }) {
  const { t } = useTranslation();
  const now = useNow(1000);
  const scheduled = isScheduledAhead(booking, now);
  const endsAt = autoCancelAt(booking);
  return (
    <Alert severity="info" icon={false} data-testid="finding-driver" data-scheduled={scheduled} sx={{ '& .MuiAlert-message': { width: '100%' } }}>
      <Stack spacing={1}>
        {scheduled ? (
          <Typography fontWeight={700} data-testid="wait-trip-date">
            {t('trip.wait.scheduled', { date: formatDateTime(booking.tripdate) })}
          </Typography>
        ) : (
          <Stack direction="row" spacing={1} alignItems="baseline" flexWrap="wrap" useFlexGap>
            <Typography>{t('trip.wait.waited')}</Typography>
            <Typography variant="h5" component="span" fontWeight={800} dir="ltr" data-testid="wait-clock" sx={{ fontVariantNumeric: 'tabular-nums' }}>
              {formatElapsed(now - searchStartedAt(booking))}
            </Typography>
          </Stack>
        )}
        {endsAt && !scheduled && (
          <Typography data-testid="search-ends" data-at={endsAt}>
            {t('trip.wait.until', { time: formatTimeOfDay(endsAt, now) })}
          </Typography>
        )}
        {onCancel && (
          <Button
            color="error"
            variant="outlined"
            onClick={onCancel}
            disabled={busy}
            data-testid="cancel-booking"
            data-free="true"
            sx={{ alignSelf: 'flex-start', bgcolor: 'background.paper' }}
          >
            {t('trip.cancel_free')}
          </Button>
        )}
      </Stack>
    </Alert>
  );
}
