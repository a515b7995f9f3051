import { alpha, Box, Chip, List, ListItemButton, ListItemText, Stack, Typography } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { useNow } from '@/hooks/use-now';
import { useConsoleTopic } from '../hooks/use-console-topic';
import { unassignedRows } from '../lib/bookings';
import { UNASSIGNED_COLOUR } from '../lib/colours';
import type { ConsoleStore } from '../stores/console-store';

/** Rows drawn at once: the longest waiting; the count says how many more. */
const SHOWN = 50;

/** The tint of an unassigned booking's row, here and in the log. */
export const UNASSIGNED_ROW_SX = {
  bgcolor: alpha(UNASSIGNED_COLOUR, 0.08),
  borderInlineStart: `4px solid ${UNASSIGNED_COLOUR}`,
  '&:hover': { bgcolor: alpha(UNASSIGNED_COLOUR, 0.14) },
} as const;

/** "Unassigned · 4 min", in the ring's colour on the map. */
export function UnassignedChip({ minutes }: { minutes: number }) {
  const { t } = useTranslation();
  return (
    <Chip
      size="small"
      label={minutes < 1 ? t('dispatch.unassigned.chip_fresh') : t('dispatch.unassigned.chip', { minutes })}
      data-testid="unassigned-chip"
      sx={{ bgcolor: UNASSIGNED_COLOUR, color: '#ffffff', fontWeight: 600, flexShrink: 0 }}
    />
  );
}

/** Issue #34: the bookings nobody has taken that are due (lib/booking-state),
 * the longest waiting first; a click frames one on the map and opens it. */
export function UnassignedList({ store, focused, onFocus }: { store: ConsoleStore; focused: string | null; onFocus: (booking: string) => void }) {
  const { t } = useTranslation();
  useConsoleTopic(store, 'bookings');
  // Booking times are the server's; minutes move on by themselves.
  const now = useNow(5_000) + store.serverOffset;
  const rows = unassignedRows(store.bookings.values(), now);
  return (
    <Stack spacing={0.75} sx={{ minHeight: 0 }} data-testid="unassigned-list" data-count={rows.length}>
      <Typography variant="subtitle2" data-testid="unassigned-title">
        {t('dispatch.unassigned.title', { count: rows.length })}
      </Typography>
      {rows.length === 0 ? (
        <Typography variant="body2" color="text.secondary" data-testid="unassigned-empty">
          {t('dispatch.unassigned.empty')}
        </Typography>
      ) : (
        <Box sx={{ overflowY: 'auto', minHeight: 0 }}>
          <List dense disablePadding>
            {rows.slice(0, SHOWN).map(({ booking, minutes }) => (
              <ListItemButton
                key={booking.id}
                selected={focused === booking.id}
                onClick={() => onFocus(booking.id)}
                data-testid="unassigned-row"
                data-booking={booking.id}
                sx={{ ...UNASSIGNED_ROW_SX, gap: 1, mb: 0.5, borderRadius: 1 }}
              >
                <ListItemText
                  primary={[booking.reference, booking.carType].filter(Boolean).join(' · ')}
                  secondary={booking.pickupAddress || booking.pickup?.add}
                  slotProps={{ primary: { noWrap: true }, secondary: { noWrap: true } }}
                  sx={{ minWidth: 0 }}
                />
                <UnassignedChip minutes={minutes} />
              </ListItemButton>
            ))}
          </List>
          {rows.length > SHOWN && (
            <Typography variant="caption" color="text.secondary">
              {t('dispatch.unassigned.more', { count: rows.length - SHOWN })}
            </Typography>
          )}
        </Box>
      )}
    </Stack>
  );
}
