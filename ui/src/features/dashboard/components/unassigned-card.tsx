import PendingActionsIcon from '@mui/icons-material/PendingActions';
import { alpha, Card, CardActionArea, CardContent, Skeleton, Stack, Typography } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink } from 'react-router';
import { ServerErrorAlert } from '@/components/ui/server-error-alert';
import { useNow } from '@/hooks/use-now';
import { bookingsListPath } from '@/lib/authorization';
import { isUnassigned, minutesUnassigned } from '@/lib/booking-state';
import type { Booking } from '@/types/api';
import { useActiveBookings } from '../api/dashboard';

/** The socket brings each change; the clock only moves Book Later trips
 * into "due" (and the minutes on), so a coarse tick is enough. */
const TICK_MS = 15_000;

/** How many bookings are unassigned now, and the longest wait among them. */
export function unassignedSummary(bookings: readonly Booking[], now: number) {
  let count = 0;
  let longestMinutes = 0;
  for (const booking of bookings) {
    if (!isUnassigned(booking, now)) continue;
    count++;
    longestMinutes = Math.max(longestMinutes, minutesUnassigned(booking, now));
  }
  return { count, longestMinutes };
}

/** Issue #34: "Unassigned bookings: N", kept current by the socket, and a
 * way to the bookings screen, already listing only the unassigned ones. */
export function UnassignedCard() {
  const { t } = useTranslation();
  const active = useActiveBookings();
  const now = useNow(TICK_MS);
  if (active.isError && !active.data) return <ServerErrorAlert error={active.error} onRetry={() => void active.refetch()} />;
  const summary = active.data ? unassignedSummary(active.data, now) : null;
  const waiting = (summary?.count ?? 0) > 0;
  return (
    <Card
      variant="outlined"
      data-testid="unassigned-card"
      data-count={summary?.count ?? ''}
      sx={(theme) => (waiting ? { borderColor: 'warning.main', bgcolor: alpha(theme.palette.warning.main, 0.08) } : {})}
    >
      <CardActionArea component={RouterLink} to={bookingsListPath('unassigned')} data-testid="unassigned-link">
        <CardContent>
          <Stack direction="row" spacing={2} sx={{ alignItems: 'center' }}>
            <Stack sx={{ p: 1.25, borderRadius: 2, bgcolor: waiting ? 'warning.main' : 'action.selected', color: waiting ? 'warning.contrastText' : 'text.secondary' }}>
              <PendingActionsIcon />
            </Stack>
            <Stack sx={{ minWidth: 0, flexGrow: 1 }}>
              {summary === null ? (
                <Skeleton width={220} height={32} />
              ) : (
                <Typography variant="h6" fontWeight={700} data-testid="unassigned-count">
                  {t('panel.dashboard.unassigned', { count: summary.count })}
                </Typography>
              )}
              {summary !== null && (
                <Typography variant="body2" color="text.secondary">
                  {!waiting
                    ? t('panel.dashboard.unassigned_none')
                    : summary.longestMinutes < 1
                      ? t('panel.dashboard.unassigned_longest_fresh')
                      : t('panel.dashboard.unassigned_longest', { minutes: summary.longestMinutes })}
                </Typography>
              )}
            </Stack>
            <Typography variant="button" color="primary" sx={{ flexShrink: 0, display: { xs: 'none', sm: 'block' } }}>
              {t('panel.dashboard.open_bookings')}
            </Typography>
          </Stack>
        </CardContent>
      </CardActionArea>
    </Card>
  );
}
