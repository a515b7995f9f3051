import ArrowForwardIcon from '@mui/icons-material/ArrowForward';
import { Stack, Typography } from '@mui/material';
import { useNow } from '@/hooks/use-now';
import { useAppTexts } from '@/lib/app-texts';
import type { Booking } from '@/types/api';
import { nextStepKey } from '../lib/booking-status';

/** The rider's one line of what happens next, under the progress. */
export function NextStep({ booking }: { booking: Booking }) {
  // A parcel's line speaks of the parcel.
  const { t } = useAppTexts(booking.appcat);
  // Only a Book Later booking's line changes with time (when its search begins).
  const now = useNow(30_000);
  const key = nextStepKey(booking, now);
  return (
    <Stack direction="row" spacing={1} alignItems="center" sx={{ my: 1 }}>
      <ArrowForwardIcon color="primary" fontSize="small" sx={(theme) => ({ transform: theme.direction === 'rtl' ? 'scaleX(-1)' : undefined })} />
      <Typography fontWeight={700} data-testid="trip-next-step" data-key={key}>
        {t(key)}
      </Typography>
    </Stack>
  );
}
