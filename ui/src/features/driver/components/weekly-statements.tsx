// Issue #37: the driver's weekly earnings statements, beside their wallet:
// each week with trips, what it came to, and its statement to download (a
// PDF) or read (the page), like the rider's receipt buttons.
import DescriptionIcon from '@mui/icons-material/Description';
import DownloadIcon from '@mui/icons-material/Download';
import ReceiptLongIcon from '@mui/icons-material/ReceiptLong';
import { Box, Button, Card, CardContent, CircularProgress, Divider, List, ListItem, Stack, Typography, useTheme } from '@mui/material';
import dayjs from 'dayjs';
import { Fragment, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { notify } from '@/components/ui/notifications/notifications-store';
import { ServerErrorAlert } from '@/components/ui/server-error-alert';
import { useSettings } from '@/lib/app-data';
import { saveFile } from '@/lib/api-client';
import { formatMoney, isolateLtr } from '@/lib/format';
import { errorText } from '@/lib/server-errors';
import type { StatementWeek } from '@/types/api';
import { downloadStatement, useStatementWeeks } from '../api/statements';
import { balanceKey, weekDays } from '../lib/statement-week';

function WeekRow({ week, driverId }: { week: StatementWeek; driverId: string }) {
  const { t, i18n } = useTranslation();
  const settings = useSettings();
  const direction = useTheme().direction;
  const [busy, setBusy] = useState(false);
  const days = weekDays(week.week);
  const totals = week.totals;
  const balance = balanceKey(totals.balance);
  const open = async (format: 'pdf' | 'html') => {
    setBusy(true);
    try {
      const file = await downloadStatement(driverId, week.week, format);
      if (format === 'pdf') saveFile(file);
      else window.open(URL.createObjectURL(file.blob), '_blank', 'noopener');
    } catch (error) {
      notify({ severity: 'error', message: errorText(error, t, (key) => i18n.exists(key)), translated: true });
    } finally {
      setBusy(false);
    }
  };
  return (
    <ListItem disableGutters sx={{ display: 'block', py: 1.25 }} data-testid="statement-week" data-week={week.week}>
      <Stack direction="row" spacing={1} useFlexGap sx={{ alignItems: 'baseline', justifyContent: 'space-between', flexWrap: 'wrap' }}>
        <Typography variant="subtitle2" component="h3">
          {days ? t('statements.week', { week: days.week }) : week.week}
        </Typography>
        {days && (
          <Typography variant="body2" color="text.secondary" data-testid="statement-days">
            <bdi>{t('statements.days', { from: dayjs(days.monday).format('D MMM'), to: dayjs(days.sunday).format('D MMM YYYY') })}</bdi>
          </Typography>
        )}
      </Stack>
      <Stack direction="row" spacing={2} useFlexGap sx={{ flexWrap: 'wrap', mt: 0.5 }}>
        <Typography variant="body2" data-testid="statement-rides">
          {t('statements.rides', { count: totals.rides })}
        </Typography>
        <Typography variant="body2" data-testid="statement-earnings">
          {t('statements.earnings')}{' '}
          <Box component="span" sx={{ fontWeight: 700 }}>
            <bdi>{formatMoney(totals.earnings, settings)}</bdi>
          </Box>
        </Typography>
      </Stack>
      <Typography
        variant="body2"
        color={balance === 'statements.driver_owes' ? 'warning.main' : 'text.secondary'}
        data-testid="statement-balance"
        data-balance={totals.balance}
      >
        {t(balance, { amount: isolateLtr(formatMoney(Math.abs(totals.balance), settings), direction) })}
      </Typography>
      <Stack direction="row" spacing={1} useFlexGap sx={{ flexWrap: 'wrap', mt: 1 }}>
        <Button variant="outlined" size="small" startIcon={<DownloadIcon />} disabled={busy} onClick={() => void open('pdf')} data-testid="statement-pdf">
          {t('statements.download')}
        </Button>
        <Button size="small" startIcon={<DescriptionIcon />} disabled={busy} onClick={() => void open('html')} data-testid="statement-view">
          {t('statements.view')}
        </Button>
      </Stack>
    </ListItem>
  );
}

/** The signed-in driver's weeks with trips, newest first. */
export function WeeklyStatements({ driverId }: { driverId: string }) {
  const { t } = useTranslation();
  const weeks = useStatementWeeks();
  const items = weeks.data?.weeks ?? [];
  return (
    <Card variant="outlined" data-testid="weekly-statements">
      <CardContent>
        <Stack direction="row" spacing={1} sx={{ alignItems: 'center', mb: 0.5 }}>
          <ReceiptLongIcon color="primary" />
          <Typography variant="h6" component="h2">
            {t('statements.title')}
          </Typography>
        </Stack>
        <Typography variant="body2" color="text.secondary">
          {t('statements.help')}
        </Typography>
        {weeks.isPending && <CircularProgress size={24} sx={{ mt: 2 }} aria-label={t('common.loading')} />}
        {weeks.isError && (
          <Box sx={{ mt: 2 }}>
            <ServerErrorAlert error={weeks.error} onRetry={() => void weeks.refetch()} />
          </Box>
        )}
        {weeks.isSuccess && items.length === 0 && (
          <Typography variant="body2" color="text.secondary" sx={{ mt: 2 }} data-testid="statements-empty">
            {t('statements.empty')}
          </Typography>
        )}
        {items.length > 0 && (
          <List dense disablePadding sx={{ mt: 1, maxHeight: 420, overflowY: 'auto' }}>
            {items.map((week, index) => (
              <Fragment key={week.week}>
                {index > 0 && <Divider component="li" />}
                <WeekRow week={week} driverId={driverId} />
              </Fragment>
            ))}
          </List>
        )}
      </CardContent>
    </Card>
  );
}
