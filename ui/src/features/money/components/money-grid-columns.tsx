// Money columns as grid columns: one place that draws amounts, dates and the
// processed chip the same way on every money screen.
import { Chip } from '@mui/material';
import type { GridColDef, GridValidRowModel } from '@mui/x-data-grid';
import type { TFunction } from 'i18next';
import { formatDateTime, formatMoney } from '@/lib/format';
import type { Settings } from '@/types/api';
import type { MoneyColumn } from '../lib/money-columns';

export function moneyGridColumns<Row extends GridValidRowModel>(columns: MoneyColumn[], t: TFunction, settings: Settings): GridColDef<Row>[] {
  return columns.map((column) => {
    const base: GridColDef<Row> = { field: column.field, headerName: t(column.label), sortable: false, minWidth: 120, flex: 1 };
    switch (column.kind) {
      case 'money':
        return { ...base, type: 'number', valueFormatter: (value: number) => formatMoney(value, settings) };
      case 'count':
        return { ...base, type: 'number', minWidth: 90 };
      case 'date':
        return { ...base, minWidth: 150, valueFormatter: (value: number | null) => (value ? formatDateTime(value) : '') };
      case 'month':
        return {
          ...base,
          minWidth: 140,
          valueGetter: (_value: unknown, row: Row) => (row.month ? `${t(`months.${row.month}`)} ${row.year}` : t('panel.money.unknown_month')),
        };
      case 'processed':
        return {
          ...base,
          minWidth: 130,
          renderCell: ({ row }) => (
            <Chip
              size="small"
              color={row.processed ? 'success' : 'warning'}
              label={t(row.processed ? 'panel.money.processed_yes' : 'panel.money.processed_no')}
              data-testid="withdraw-processed"
              data-processed={String(Boolean(row.processed))}
            />
          ),
        };
      default:
        return base;
    }
  });
}
