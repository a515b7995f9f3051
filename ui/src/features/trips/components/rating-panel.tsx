import { Alert, Button, Paper, Rating, Stack, Typography } from '@mui/material';
import { useState } from 'react';
import { useAppTexts } from '@/lib/app-texts';
import { formatTimeOfDay } from '@/lib/format';
import type { AppCategory } from '@/types/api';

/** The rider rates the driver, or skips: rating is optional, and a trip
 * nobody rates closes by itself at `closesAt`. */
export function RatingPanel({
  driverName,
  appcat,
  busy,
  error,
  closesAt,
  onRate,
  onSkip,
}: {
  driverName: string;
  /** The booking's category: "How was your delivery?" for a parcel. */
  appcat?: AppCategory;
  busy: boolean;
  error: string | null;
  closesAt: number | null;
  onRate: (rating: number) => void;
  onSkip: () => void;
}) {
  const { t } = useAppTexts(appcat);
  const [rating, setRating] = useState<number | null>(null);
  return (
    <Paper variant="outlined" sx={{ p: 2 }} data-testid="rating-panel">
      <Stack spacing={1} alignItems="flex-start">
        <Typography fontWeight={700}>{t('trip.rate_title', { name: driverName })}</Typography>
        <Rating
          value={rating}
          onChange={(_, value) => setRating(value)}
          size="large"
          getLabelText={(value) => t('trip.stars', { count: value })}
          data-testid="rating-stars"
        />
        {error && <Alert severity="error">{t(error)}</Alert>}
        <Stack direction="row" spacing={1} flexWrap="wrap" useFlexGap>
          <Button variant="contained" disabled={!rating || busy} onClick={() => rating && onRate(rating)} data-testid="rate-submit">
            {t('trip.rate_submit')}
          </Button>
          <Button variant="text" disabled={busy} onClick={onSkip} data-testid="rate-skip">
            {t('trip.rate_skip')}
          </Button>
        </Stack>
        {closesAt && (
          <Typography variant="body2" color="text.secondary" data-testid="auto-complete" data-at={closesAt}>
            {t('trip.auto_complete', { time: formatTimeOfDay(closesAt) })}
          </Typography>
        )}
      </Stack>
    </Paper>
  );
}
