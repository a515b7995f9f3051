import CalendarMonthIcon from '@mui/icons-material/CalendarMonth';
import SavingsIcon from '@mui/icons-material/Savings';
import TodayIcon from '@mui/icons-material/Today';
import { Card, CardContent, Grid, Skeleton, Stack, Typography } from '@mui/material';
import type { ReactElement } from 'react';
import { useTranslation } from 'react-i18next';
import { ServerErrorAlert } from '@/components/ui/server-error-alert';
import { useSettings } from '@/lib/app-data';
import { formatMoney } from '@/lib/format';
import { useDashboardEarnings } from '../api/dashboard';

function EarningCard({ id, title, amount, rides, icon }: { id: string; title: string; amount?: number; rides?: number; icon: ReactElement }) {
  const { t } = useTranslation();
  const settings = useSettings();
  return (
    <Card variant="outlined" sx={{ height: '100%' }} data-testid={`earning-${id}`}>
      <CardContent>
        <Stack direction="row" spacing={2} sx={{ alignItems: 'center' }}>
          <Stack sx={{ p: 1.25, borderRadius: 2, bgcolor: 'primary.main', color: 'primary.contrastText' }}>{icon}</Stack>
          <Stack sx={{ minWidth: 0 }}>
            <Typography variant="body2" color="text.secondary">
              {t(title)}
            </Typography>
            {amount === undefined ? (
              <Skeleton width={120} height={40} />
            ) : (
              <Typography variant="h5" fontWeight={800} data-testid={`earning-${id}-amount`} dir="ltr" sx={{ textAlign: 'start' }}>
                {formatMoney(amount, settings)}
              </Typography>
            )}
            {rides !== undefined && (
              <Typography variant="caption" color="text.secondary">
                {t('panel.dashboard.rides', { count: rides })}
              </Typography>
            )}
          </Stack>
        </Stack>
      </CardContent>
    </Card>
  );
}

/** Spec §2: gross earning cards for today, this month and total. */
export function EarningCards() {
  const earnings = useDashboardEarnings();
  if (earnings.isError && !earnings.data) return <ServerErrorAlert error={earnings.error} onRetry={() => void earnings.refetch()} />;
  const data = earnings.data;
  return (
    <Grid container spacing={2}>
      <Grid size={{ xs: 12, sm: 4 }}>
        <EarningCard id="today" title="panel.dashboard.today" amount={data?.today} rides={data?.rides.today} icon={<TodayIcon />} />
      </Grid>
      <Grid size={{ xs: 12, sm: 4 }}>
        <EarningCard id="month" title="panel.dashboard.this_month" amount={data?.thisMonth} rides={data?.rides.thisMonth} icon={<CalendarMonthIcon />} />
      </Grid>
      <Grid size={{ xs: 12, sm: 4 }}>
        <EarningCard id="total" title="panel.dashboard.total" amount={data?.total} rides={data?.rides.total} icon={<SavingsIcon />} />
      </Grid>
    </Grid>
  );
}
