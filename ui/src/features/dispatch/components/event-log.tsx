import {
  Box,
  Chip,
  List,
  ListItemButton,
  ListItemText,
  MenuItem,
  Stack,
  TextField,
  Typography,
} from '@mui/material';
import dayjs from 'dayjs';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNow } from '@/hooks/use-now';
import { isUnassigned, minutesUnassigned } from '@/lib/booking-state';
import { DISPATCH_KINDS, entryText, shortId, type DispatchEntry, type DispatchKind } from '@/lib/dispatch-entries';
import type { User } from '@/types/api';
import { useFleets } from '../api/dispatch';
import { useConsoleTopic } from '../hooks/use-console-topic';
import { carTypesOf, filterLog, NO_FILTER, type LogFilter } from '../lib/log';
import type { ConsoleStore } from '../stores/console-store';
import { UNASSIGNED_ROW_SX, UnassignedChip } from './unassigned-list';

/** Rows drawn at once: the newest; the filter finds older ones. */
const SHOWN = 200;

const KIND_COLOURS: Record<DispatchKind, 'default' | 'info' | 'warning' | 'success' | 'error'> = {
  offered: 'info',
  withdrawn: 'warning',
  accepted: 'success',
  no_candidates: 'error',
  exhausted: 'error',
  cancelled: 'default',
};

function FleetName(fleet: User) {
  return [fleet.firstName, fleet.lastName].filter(Boolean).join(' ') || fleet.email || fleet.id;
}

/** The `dispatch` entries, newest first, filtered by kind, car type and (admins) fleet. */
export function EventLog({ store, isAdmin, onFocus }: { store: ConsoleStore; isAdmin: boolean; onFocus: (entry: DispatchEntry) => void }) {
  const { t } = useTranslation();
  useConsoleTopic(store, 'log');
  useConsoleTopic(store, 'names');
  // Entries of a booking unassigned now stand out (lib/booking-state).
  useConsoleTopic(store, 'bookings');
  const now = useNow(5_000) + store.serverOffset;
  const [filter, setFilter] = useState<LogFilter>(NO_FILTER);
  const fleets = useFleets(isAdmin);
  const log = store.log;
  const carTypes = useMemo(() => carTypesOf(log), [log]);
  // Entries naming a driver whose fleet is not known yet wait for it (the directory asks).
  const fleetOf = (driver: string) => store.directory.get(driver)?.fleet;
  const driverName = (driver: string) => store.directory.label(driver);
  const entries = filterLog(log, filter, fleetOf);
  const reference = (booking: string) => store.bookings.get(booking)?.booking?.reference ?? shortId(booking);
  return (
    <Stack spacing={1} sx={{ minHeight: 0, height: '100%' }} data-testid="dispatch-log">
      <Stack direction="row" spacing={1} useFlexGap sx={{ flexWrap: 'wrap' }}>
        <TextField
          select
          size="small"
          label={t('dispatch.log.kind')}
          value={filter.kinds}
          onChange={(event) => {
            const value = event.target.value as unknown as DispatchKind[] | string;
            setFilter({ ...filter, kinds: typeof value === 'string' ? (value.split(',') as DispatchKind[]) : value });
          }}
          slotProps={{
            select: {
              multiple: true,
              displayEmpty: true,
              renderValue: (selected) => ((selected as DispatchKind[]).length ? (selected as DispatchKind[]).map((kind) => t(`dispatch.kind.${kind}`)).join(', ') : t('dispatch.log.all')),
              SelectDisplayProps: { 'data-testid': 'log-kind-filter' } as React.HTMLAttributes<HTMLDivElement>,
            },
            inputLabel: { shrink: true },
          }}
          sx={{ minWidth: 140, flex: 1 }}
        >
          {DISPATCH_KINDS.map((kind) => (
            <MenuItem key={kind} value={kind}>
              {t(`dispatch.kind.${kind}`)}
            </MenuItem>
          ))}
        </TextField>
        <TextField
          select
          size="small"
          label={t('dispatch.log.car_type')}
          value={filter.carType}
          onChange={(event) => setFilter({ ...filter, carType: event.target.value })}
          slotProps={{ select: { displayEmpty: true }, inputLabel: { shrink: true } }}
          sx={{ minWidth: 120, flex: 1 }}
        >
          <MenuItem value="">{t('dispatch.log.all')}</MenuItem>
          {carTypes.map((name) => (
            <MenuItem key={name} value={name}>
              {name}
            </MenuItem>
          ))}
        </TextField>
        {isAdmin && (
          <TextField
            select
            size="small"
            label={t('dispatch.log.fleet')}
            value={filter.fleet}
            onChange={(event) => setFilter({ ...filter, fleet: event.target.value })}
            slotProps={{ select: { displayEmpty: true }, inputLabel: { shrink: true } }}
            sx={{ minWidth: 120, flex: 1 }}
          >
            <MenuItem value="">{t('dispatch.log.all')}</MenuItem>
            {(fleets.data ?? []).map((fleet) => (
              <MenuItem key={fleet.id} value={fleet.id}>
                {FleetName(fleet)}
              </MenuItem>
            ))}
          </TextField>
        )}
      </Stack>
      {filter.fleet && store.directory.pending() && (
        <Typography variant="caption" color="text.secondary">
          {t('dispatch.log.fleet_loading')}
        </Typography>
      )}
      <Typography variant="caption" color="text.secondary" data-testid="log-count">
        {t('dispatch.log.count', { shown: Math.min(SHOWN, entries.length), count: entries.length })}
      </Typography>
      <Box sx={{ flex: 1, minHeight: 200, overflowY: 'auto' }}>
        {entries.length === 0 ? (
          <Typography variant="body2" color="text.secondary" sx={{ p: 1 }} data-testid="log-empty">
            {t('dispatch.log.empty')}
          </Typography>
        ) : (
          <List dense disablePadding>
            {entries.slice(0, SHOWN).map((entry, index) => {
              const current = store.bookings.get(entry.booking)?.booking;
              const unassigned = current ? isUnassigned(current, now) : false;
              return (
                <ListItemButton
                  key={`${entry.at}-${entry.booking}-${entry.kind}-${index}`}
                  onClick={() => onFocus(entry)}
                  data-testid="log-entry"
                  data-kind={entry.kind}
                  data-booking={entry.booking}
                  data-unassigned={unassigned}
                  sx={{ alignItems: 'flex-start', gap: 1, ...(unassigned ? UNASSIGNED_ROW_SX : {}) }}
                >
                  <Chip size="small" color={KIND_COLOURS[entry.kind]} label={t(`dispatch.kind.${entry.kind}`)} sx={{ mt: 0.5, minWidth: 88 }} />
                  <Box sx={{ minWidth: 0, flex: 1 }}>
                    <ListItemText
                      primary={entryText(entry, t, driverName)}
                      secondary={`${dayjs(entry.at).format('HH:mm:ss')} · ${reference(entry.booking)}${entry.car_type ? ` · ${entry.car_type}` : ''}`}
                    />
                    {/* Under the text: the log's column is narrow. */}
                    {unassigned && current && <UnassignedChip minutes={minutesUnassigned(current, now)} />}
                  </Box>
                </ListItemButton>
              );
            })}
          </List>
        )}
      </Box>
    </Stack>
  );
}
