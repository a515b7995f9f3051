import { Alert, Button, Paper, Rating, Stack, Typography } from '@mui/material';
import { useState } from 'react';
import { useAppTexts } from '@/lib/app-texts';
import type { AppCategory } from '@/types/api';

export function RatingPanel({
  driverName,
  appcat,
  busy,
  error,
  onRate,
}: {
  driverName: string;
  /** The booking's category: "How was your delivery?" for a parcel. */
  appcat?: AppCategory;
  busy: boolean;
  error: string | null;
  onRate: (rating: number) => void;
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
        <Button variant="contained" disabled={!rating || busy} onClick={() => rating && onRate(rating)} data-testid="rate-submit">
          {t('trip.rate_submit')}
        </Button>
      </Stack>
    </Paper>
  );
}
