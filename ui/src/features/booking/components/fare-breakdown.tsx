import { Box, Table, TableBody, TableCell, TableRow, Typography } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { formatMoney } from '@/lib/format';
import type { FareBreakdown, Settings } from '@/types/api';
import { breakdownLines, type BreakdownLine } from '../lib/fare-breakdown';

/** What the lines name besides their amounts: the trip's distance and time as shown, the parcel type and option chosen. */
export interface BreakdownDetails {
  distance: string;
  time: string;
  parcel?: string;
  option?: string;
}

/** The estimate's breakdown as a small table, each amount in the app's money format. */
export function FareBreakdownTable({ breakdown, settings, details }: { breakdown: FareBreakdown; settings: Settings; details: BreakdownDetails }) {
  const { t } = useTranslation();
  const label = (line: BreakdownLine) => {
    switch (line.id) {
      case 'base':
        return t('booking.breakdown_base');
      case 'distance':
        return t('booking.breakdown_distance', { distance: details.distance });
      case 'time':
        return t('booking.breakdown_time', { time: details.time });
      case 'parcel':
        return details.parcel ? t('booking.breakdown_parcel', { name: details.parcel }) : t('booking.parcel_type');
      case 'option':
        return details.option ? t('booking.breakdown_option', { name: details.option }) : t('booking.parcel_option');
      case 'minimumTopUp':
        return t('booking.breakdown_minimum');
      case 'convenienceFees':
        return t('booking.breakdown_fees');
      case 'promo':
        return t('booking.breakdown_promo');
      case 'payable':
        return t('booking.breakdown_payable');
    }
  };
  return (
    <Box data-testid="fare-breakdown">
      <Typography variant="subtitle2" fontWeight={700} id="fare-breakdown-title">
        {t('booking.breakdown_title')}
      </Typography>
      <Table size="small" aria-labelledby="fare-breakdown-title">
        <TableBody>
          {breakdownLines(breakdown).map((line) => (
            <TableRow
              key={line.id}
              data-testid={`breakdown-${line.id}`}
              sx={line.total ? { '& td': { fontWeight: 800, borderBottom: 0, borderTop: 2, borderColor: 'divider' } } : undefined}
            >
              <TableCell sx={{ px: 0 }}>{label(line)}</TableCell>
              <TableCell align="right" sx={{ px: 0, whiteSpace: 'nowrap', color: line.id === 'promo' ? 'success.main' : undefined }}>
                {/* Amounts read left to right in every language: the sign and symbol stay where they belong. */}
                <Box component="span" dir="ltr" data-testid={`breakdown-${line.id}-amount`}>
                  {formatMoney(line.amount, settings)}
                </Box>
              </TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
    </Box>
  );
}
