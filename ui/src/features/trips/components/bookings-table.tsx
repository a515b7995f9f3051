import SearchIcon from '@mui/icons-material/Search';
import {
  Box,
  Button,
  InputAdornment,
  Paper,
  Table,
  TableBody,
  TableCell,
  TableContainer,
  TableHead,
  TableRow,
  TableSortLabel,
  TextField,
  Typography,
} from '@mui/material';
import { useQueryClient } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { useSettings } from '@/lib/app-data';
import { useAppTexts } from '@/lib/app-texts';
import type { Booking, Role } from '@/types/api';
import { loadMoreBookings, useBookings } from '../api/bookings';
import { matchesSearch, visibleColumns } from '../lib/booking-columns';
import { DropAddress } from './drop-address';
import { StatusChip } from './status-chip';

/** Searchable, sortable bookings (spec §2 "Bookings"), scoped by the server to the viewer. */
export function BookingsTable({
  role,
  selectedId,
  onSelect,
}: {
  role: Role;
  selectedId?: string | null;
  onSelect: (booking: Booking) => void;
}) {
  const { t } = useAppTexts();
  const settings = useSettings();
  const client = useQueryClient();
  const bookings = useBookings();
  const [search, setSearch] = useState('');
  const [sort, setSort] = useState<{ column: string; direction: 'asc' | 'desc' }>({ column: 'tripdate', direction: 'desc' });
  const [loadingMore, setLoadingMore] = useState(false);
  const columns = useMemo(() => visibleColumns(settings, role), [settings, role]);

  const rows = useMemo(() => {
    const column = columns.find((candidate) => candidate.id === sort.column) ?? columns[0];
    const items = (bookings.data?.items ?? []).filter((booking) => matchesSearch(booking, search));
    return [...items].sort((a, b) => {
      const left = column.value(a);
      const right = column.value(b);
      const order = typeof left === 'number' && typeof right === 'number' ? left - right : String(left).localeCompare(String(right));
      return sort.direction === 'asc' ? order : -order;
    });
  }, [bookings.data, columns, search, sort]);

  const sortBy = (column: string) =>
    setSort((current) => ({ column, direction: current.column === column && current.direction === 'desc' ? 'asc' : 'desc' }));

  return (
    <Paper variant="outlined" sx={{ overflow: 'hidden' }} data-testid="bookings-table">
      <Box sx={{ p: 2, display: 'flex', gap: 2, alignItems: 'center', flexWrap: 'wrap' }}>
        <Typography variant="h6" sx={{ flexGrow: 1 }}>
          {t('table.title')}
        </Typography>
        <TextField
          size="small"
          placeholder={t('table.search')}
          value={search}
          onChange={(event) => setSearch(event.target.value)}
          slotProps={{
            input: {
              startAdornment: (
                <InputAdornment position="start">
                  <SearchIcon fontSize="small" />
                </InputAdornment>
              ),
            },
          }}
        />
      </Box>
      <TableContainer sx={{ maxHeight: 560 }}>
        <Table stickyHeader size="small">
          <TableHead>
            <TableRow>
              {columns.map((column) => (
                <TableCell key={column.id} align={column.numeric ? 'right' : 'left'} sx={{ whiteSpace: 'nowrap', fontWeight: 700 }}>
                  <TableSortLabel
                    active={sort.column === column.id}
                    direction={sort.column === column.id ? sort.direction : 'asc'}
                    onClick={() => sortBy(column.id)}
                  >
                    {t(column.label)}
                  </TableSortLabel>
                </TableCell>
              ))}
            </TableRow>
          </TableHead>
          <TableBody>
            {rows.map((booking) => (
              <TableRow
                key={booking.id}
                hover
                selected={booking.id === selectedId}
                onClick={() => onSelect(booking)}
                sx={{ cursor: 'pointer' }}
                data-testid="booking-row"
                data-booking-id={booking.id}
                data-status={booking.status}
              >
                {columns.map((column) => (
                  <TableCell
                    key={column.id}
                    align={column.numeric ? 'right' : 'left'}
                    sx={{ whiteSpace: column.id.endsWith('Address') ? 'normal' : 'nowrap', minWidth: column.id.endsWith('Address') ? 200 : undefined }}
                  >
                    {column.id === 'status' ? (
                      <StatusChip status={booking.status} />
                    ) : column.id === 'dropAddress' ? (
                      <DropAddress booking={booking} dense />
                    ) : column.text ? (
                      column.text(booking, t)
                    ) : (
                      String(column.value(booking) ?? '')
                    )}
                  </TableCell>
                ))}
              </TableRow>
            ))}
          </TableBody>
        </Table>
      </TableContainer>
      {rows.length === 0 && (
        // Outside the table, so the text is not centred across twenty columns.
        <Typography color="text.secondary" sx={{ py: 3 }} textAlign="center" data-testid="bookings-empty">
          {bookings.isPending ? t('common.loading') : bookings.isError ? t('no_bookings') : t('table.empty')}
        </Typography>
      )}
      {bookings.data?.next && (
        <Box sx={{ p: 1, textAlign: 'center' }}>
          <Button
            disabled={loadingMore}
            onClick={() => {
              setLoadingMore(true);
              void loadMoreBookings(client).finally(() => setLoadingMore(false));
            }}
          >
            {t('table.load_more')}
          </Button>
        </Box>
      )}
    </Paper>
  );
}
