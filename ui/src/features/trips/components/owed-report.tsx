// Issue #34: the money owed to the platform (`GET /reports/owed`; a fleet
// admin sees their fleet's): trips over whose card payment never came
// (PENDING), each with "mark paid" and "settle in cash", and cancellation
// fees the rider's wallet could not cover. Every row opens its booking.
import CreditCardIcon from '@mui/icons-material/CreditCard';
import PaymentsIcon from '@mui/icons-material/Payments';
import { Chip, Link, Stack, Typography } from '@mui/material';
import type { GridColDef } from '@mui/x-data-grid';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink, useNavigate } from 'react-router';
import { PanelTable, type PanelRowAction } from '@/components/panel/panel-table';
import { useSettings } from '@/lib/app-data';
import { bookingPagePath } from '@/lib/authorization';
import { formatDateTime, formatMoney } from '@/lib/format';
import type { Booking, OwedFee } from '@/types/api';
import { useOwedReport } from '../api/booking-admin';
import { useSettleWithConfirm } from '../hooks/use-settle';

function ReferenceLink({ id, reference }: { id: string; reference: string }) {
  return (
    <Link component={RouterLink} to={bookingPagePath(id)} onClick={(event) => event.stopPropagation()} data-testid="owed-booking-link">
      {reference}
    </Link>
  );
}

/** The sum of amounts, rounded as money is. */
function total(amounts: number[]) {
  return Math.round(amounts.reduce((sum, amount) => sum + amount, 0) * 100) / 100;
}

export function OwedReportView() {
  const { t } = useTranslation();
  const settings = useSettings();
  const navigate = useNavigate();
  const report = useOwedReport();
  const settle = useSettleWithConfirm();
  const pending = report.data?.pending;
  const fees = report.data?.fees;
  const money = (amount: number) => formatMoney(amount, settings);

  const tripColumns = useMemo<GridColDef<Booking>[]>(
    () => [
      { field: 'reference', headerName: t('table.reference'), minWidth: 110, renderCell: ({ row }) => <ReferenceLink id={row.id} reference={row.reference} /> },
      { field: 'trip_end_time', headerName: t('owed.ended'), minWidth: 150, valueGetter: (_value, row) => row.trip_end_time ?? row.updatedAt, valueFormatter: (value: number) => formatDateTime(value) },
      { field: 'customer_name', headerName: t('table.customer'), minWidth: 150, flex: 1 },
      { field: 'driver_name', headerName: t('table.driver'), minWidth: 150, flex: 1 },
      {
        field: 'payableAmount',
        headerName: t('owed.amount'),
        minWidth: 110,
        align: 'right',
        headerAlign: 'right',
        valueGetter: (_value, row) => row.payableAmount || row.trip_cost,
        valueFormatter: (value: number) => formatMoney(value, settings),
      },
    ],
    [t, settings],
  );
  const feeColumns = useMemo<GridColDef<OwedFee>[]>(
    () => [
      { field: 'reference', headerName: t('table.reference'), minWidth: 110, renderCell: ({ row }) => <ReferenceLink id={row.booking} reference={row.reference} /> },
      { field: 'date', headerName: t('owed.cancelled_on'), minWidth: 150, valueFormatter: (value: number) => formatDateTime(value) },
      { field: 'customer_name', headerName: t('table.customer'), minWidth: 160, flex: 1 },
      { field: 'owed', headerName: t('owed.fee_owed'), minWidth: 110, align: 'right', headerAlign: 'right', valueFormatter: (value: number) => formatMoney(value, settings) },
    ],
    [t, settings],
  );

  const tripActions = (booking: Booking): PanelRowAction[] => [
    { key: 'mark-paid', label: 'booking_page.settle_card', icon: <CreditCardIcon />, onClick: () => void settle.run(booking, 'card'), disabled: settle.isPending },
    { key: 'settle-cash', label: 'booking_page.settle_cash', icon: <PaymentsIcon />, onClick: () => void settle.run(booking, 'cash'), disabled: settle.isPending },
  ];

  return (
    <Stack spacing={3} data-testid="owed-report">
      <Stack spacing={1}>
        <Stack direction="row" spacing={1} useFlexGap sx={{ alignItems: 'center', flexWrap: 'wrap' }}>
          <Typography variant="h6" component="h2" sx={{ flexGrow: 1 }}>
            {t('owed.unpaid_trips')}
          </Typography>
          {pending && <Chip color={pending.length ? 'warning' : 'default'} label={t('owed.total', { count: pending.length, amount: money(total(pending.map((row) => row.payableAmount || row.trip_cost))) })} data-testid="owed-trips-total" />}
        </Stack>
        <Typography variant="body2" color="text.secondary">
          {t('owed.unpaid_trips_help')}
        </Typography>
        <PanelTable<Booking>
          testId="owed-trips-grid"
          columns={tripColumns}
          search={false}
          emptyText="owed.no_unpaid_trips"
          source={{ mode: 'client', rows: pending, isPending: report.isPending, error: report.error, refetch: () => void report.refetch() }}
          actions={tripActions}
          onRowClick={(booking) => navigate(bookingPagePath(booking.id))}
        />
      </Stack>
      <Stack spacing={1}>
        <Stack direction="row" spacing={1} useFlexGap sx={{ alignItems: 'center', flexWrap: 'wrap' }}>
          <Typography variant="h6" component="h2" sx={{ flexGrow: 1 }}>
            {t('owed.fees')}
          </Typography>
          {fees && <Chip color={fees.length ? 'warning' : 'default'} label={t('owed.total', { count: fees.length, amount: money(total(fees.map((fee) => fee.owed))) })} data-testid="owed-fees-total" />}
        </Stack>
        <Typography variant="body2" color="text.secondary">
          {t('owed.fees_help')}
        </Typography>
        <PanelTable<OwedFee>
          testId="owed-fees-grid"
          columns={feeColumns}
          getRowId={(fee) => fee.booking}
          search={false}
          emptyText="owed.no_fees"
          source={{ mode: 'client', rows: fees, isPending: report.isPending, error: null }}
          onRowClick={(fee) => navigate(bookingPagePath(fee.booking))}
        />
      </Stack>
    </Stack>
  );
}
