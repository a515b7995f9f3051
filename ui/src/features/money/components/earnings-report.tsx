// The earnings report and the driver earning table (spec §2 "/earningreports",
// "/driverearning"): one row per driver per month, paged by the server, for a
// calendar year or month, exported as CSV or XLSX when critical edits are allowed.
import { MenuItem, TextField } from '@mui/material';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { PanelTable } from '@/components/panel/panel-table';
import { useSettings } from '@/lib/app-data';
import { useCriticalEditsAllowed } from '@/lib/critical-edits';
import { fetchReportPage, periodQuery, REPORT_PATHS, reportKey, type Period, type ReportKind } from '../api/money';
import { earningsColumns, reportYears } from '../lib/money-columns';
import { moneyGridColumns } from './money-grid-columns';
import type { EarningsReportRow } from '@/types/api';

export function EarningsReport({ kind }: { kind: ReportKind }) {
  const { t } = useTranslation();
  const settings = useSettings();
  const criticalEdits = useCriticalEditsAllowed();
  const [period, setPeriod] = useState<Period>({ year: new Date().getFullYear(), month: '' });
  const columns = useMemo(() => moneyGridColumns<EarningsReportRow>(earningsColumns(kind), t, settings), [kind, t, settings]);
  const years = useMemo(() => reportYears(new Date()), []);

  const filters = (
    <>
      <TextField
        select
        size="small"
        label={t('panel.money.year')}
        value={period.year}
        onChange={(event) => setPeriod({ year: event.target.value === '' ? '' : Number(event.target.value), month: '' })}
        disabled={Boolean(period.from || period.until)}
        sx={{ minWidth: 120 }}
        slotProps={{ select: { displayEmpty: true, SelectDisplayProps: { 'data-testid': `${kind}-year` } as React.HTMLAttributes<HTMLDivElement> }, inputLabel: { shrink: true } }}
      >
        <MenuItem value="">{t('panel.money.all_time')}</MenuItem>
        {years.map((year) => (
          <MenuItem key={year} value={year}>
            {year}
          </MenuItem>
        ))}
      </TextField>
      <TextField
        select
        size="small"
        label={t('panel.money.month')}
        value={period.month}
        disabled={period.year === ''}
        onChange={(event) => setPeriod({ ...period, month: event.target.value === '' ? '' : Number(event.target.value) })}
        sx={{ minWidth: 140 }}
        slotProps={{ select: { displayEmpty: true, SelectDisplayProps: { 'data-testid': `${kind}-month` } as React.HTMLAttributes<HTMLDivElement> }, inputLabel: { shrink: true } }}
      >
        <MenuItem value="">{t('panel.money.whole_year')}</MenuItem>
        {Array.from({ length: 12 }, (_, index) => index + 1).map((month) => (
          <MenuItem key={month} value={month}>
            {t(`months.${month}`)}
          </MenuItem>
        ))}
      </TextField>
      {(['from', 'until'] as const).map((edge) => (
        <TextField
          key={edge}
          type="date"
          size="small"
          label={t(`panel.money.${edge}`)}
          value={period[edge] ?? ''}
          onChange={(event) => setPeriod({ ...period, year: '', month: '', [edge]: event.target.value })}
          sx={{ minWidth: 150 }}
          slotProps={{ inputLabel: { shrink: true }, htmlInput: { 'data-testid': `${kind}-${edge}` } }}
        />
      ))}
    </>
  );

  return (
    <PanelTable<EarningsReportRow>
      testId={`${kind}-report`}
      columns={columns}
      search={false}
      emptyText="panel.empty.earnings"
      getRowId={(row) => `${row.year}-${row.month}-${row.driverUId}`}
      source={{
        mode: 'server',
        queryKey: reportKey(kind, period),
        fetchPage: (params, signal) => fetchReportPage<EarningsReportRow>(kind, period, params, signal),
      }}
      exportFile={criticalEdits ? { path: REPORT_PATHS[kind], query: periodQuery(period) } : null}
      toolbar={filters}
    />
  );
}
