// Issue #33: the panel's SOS screen. Every alert the caller may see (a
// fleet admin: their drivers' bookings), unresolved first, paged by the
// server; the chosen one (`?alert=`) with its booking, where it was raised
// on the map, who took it, and "Resolve" with a note.
import CheckCircleIcon from '@mui/icons-material/CheckCircle';
import PanToolIcon from '@mui/icons-material/PanTool';
import {
  Alert,
  Button,
  Card,
  CardContent,
  Chip,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  Grid,
  Link,
  Stack,
  TextField,
  Typography,
} from '@mui/material';
import type { GridColDef } from '@mui/x-data-grid';
import { useQuery } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { MapView } from '@/components/map/map-view';
import { PanelTable, type PanelRowAction } from '@/components/panel/panel-table';
import { Line, Ltr } from '@/components/ui/detail-line';
import { notify } from '@/components/ui/notifications/notifications-store';
import { api } from '@/lib/api-client';
import { formatDateTime } from '@/lib/format';
import { queryKeys } from '@/lib/query-keys';
import { errorText } from '@/lib/server-errors';
import type { Booking, SosAlertShown, SosState } from '@/types/api';
import { fetchSosPage, useResolveSos, useSosAlert, useTakeSos } from '../api/sos';

const STATE_COLOURS: Record<SosState, 'error' | 'warning' | 'success'> = { open: 'error', taken: 'warning', resolved: 'success' };

export function SosStateChip({ state }: { state: SosState }) {
  const { t } = useTranslation();
  return <Chip size="small" color={STATE_COLOURS[state]} label={t(`sos.state.${state}`)} data-testid="sos-state" data-state={state} />;
}

function ResolveDialog({ alert, onClose }: { alert: SosAlertShown; onClose: () => void }) {
  const { t, i18n } = useTranslation();
  const resolve = useResolveSos();
  const [note, setNote] = useState('');
  const blank = note.trim() === '';
  const submit = () =>
    resolve.mutate(
      { id: alert.id, note },
      { onSuccess: () => (notify({ severity: 'success', message: 'sos.resolved_done' }), onClose()) },
    );
  return (
    <Dialog open onClose={onClose} fullWidth maxWidth="sm" data-testid="sos-resolve-dialog">
      <DialogTitle>{t('sos.resolve_title', { reference: alert.reference })}</DialogTitle>
      <DialogContent>
        <TextField
          autoFocus
          multiline
          minRows={3}
          fullWidth
          margin="dense"
          label={t('sos.note')}
          helperText={t('sos.note_help')}
          value={note}
          onChange={(event) => setNote(event.target.value)}
          slotProps={{ htmlInput: { maxLength: 2000, 'data-testid': 'sos-note' } }}
        />
        {resolve.isError && (
          <Alert severity="error" sx={{ mt: 1 }} data-testid="sos-resolve-error">
            {errorText(resolve.error, t, (key) => i18n.exists(key))}
          </Alert>
        )}
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>{t('common.cancel')}</Button>
        <Button variant="contained" color="success" disabled={blank || resolve.isPending} onClick={submit} data-testid="sos-resolve-submit">
          {t('sos.resolve')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}

function AlertDetails({ id, onResolve }: { id: string; onResolve: (alert: SosAlertShown) => void }) {
  const { t } = useTranslation();
  const alert = useSosAlert(id);
  const booking = useQuery({
    queryKey: queryKeys.bookings.detail(alert.data?.booking ?? ''),
    queryFn: ({ signal }) => api.get<Booking>(`/bookings/${alert.data?.booking}`, undefined, signal),
    enabled: Boolean(alert.data?.booking),
  });
  if (alert.isError) return <Alert severity="warning">{t('not_found')}</Alert>;
  if (!alert.data) return null;
  const shown = alert.data;
  const trip = booking.data;
  return (
    <Card variant="outlined" data-testid="sos-details" data-alert-id={shown.id} data-state={shown.state}>
      <CardContent>
        <Stack direction="row" spacing={1} alignItems="center" sx={{ mb: 1.5 }} flexWrap="wrap" useFlexGap>
          <Typography variant="h6" component="h2" fontWeight={800} sx={{ flexGrow: 1 }}>
            {t('sos.details_title', { reference: shown.reference })}
          </Typography>
          <SosStateChip state={shown.state} />
        </Stack>
        <Grid container spacing={2}>
          <Grid size={{ xs: 12, md: 7 }}>
            {/* The red pin is where the alert was raised; the green one the
                trip's pickup, so the map frames both. */}
            <MapView
              markers={[
                { id: shown.id, kind: 'drop', lat: shown.lat, lng: shown.lng, label: shown.raised_by_name },
                ...(trip ? [{ id: 'pickup', kind: 'pickup' as const, lat: trip.pickup.lat, lng: trip.pickup.lng, label: trip.pickup.add }] : []),
              ]}
              height={{ xs: 260, md: 340 }}
            />
          </Grid>
          <Grid size={{ xs: 12, md: 5 }}>
            <Stack spacing={1}>
              <Line label={t('sos.col.raised_by')}>
                {shown.raised_by_name} ({t(`sos.role.${shown.raised_by_role}`)})
              </Line>
              <Line label={t('sos.col.created_at')}>
                <bdi>{formatDateTime(shown.created_at)}</bdi>
              </Line>
              <Line label={t('sos.position')}>
                <Ltr>{`${shown.lat.toFixed(5)}, ${shown.lng.toFixed(5)}`}</Ltr>
              </Line>
              {trip && (
                <>
                  <Line label={t('sos.booking_status')}>{t(`status.${trip.status}`, { defaultValue: trip.status })}</Line>
                  <Line label={t('sos.rider')}>
                    {trip.customer_name} {trip.customer_contact && <Ltr>{trip.customer_contact}</Ltr>}
                  </Line>
                  <Line label={t('sos.driver')}>
                    {trip.driver_name} {trip.driver_contact && <Ltr>{trip.driver_contact}</Ltr>}
                    {trip.vehicle_number && (
                      <>
                        {' · '}
                        <Ltr>{trip.vehicle_number}</Ltr>
                      </>
                    )}
                  </Line>
                  <Line label={t('sos.pickup')}>{trip.pickup.add}</Line>
                  <Line label={t('sos.drop')}>{trip.drop.add}</Line>
                </>
              )}
              {shown.taken_at && (
                <Line label={t('sos.taken_by')}>
                  {shown.taken_by_name} · <bdi>{formatDateTime(shown.taken_at)}</bdi>
                </Line>
              )}
              {shown.resolved_at && (
                <>
                  <Line label={t('sos.resolved_by')}>
                    {shown.resolved_by_name} · <bdi>{formatDateTime(shown.resolved_at)}</bdi>
                  </Line>
                  <Line label={t('sos.note')}>
                    <span data-testid="sos-details-note">{shown.note}</span>
                  </Line>
                </>
              )}
              {shown.state !== 'resolved' && (
                <Button
                  variant="contained"
                  color="success"
                  startIcon={<CheckCircleIcon />}
                  onClick={() => onResolve(shown)}
                  data-testid="sos-resolve"
                  sx={{ alignSelf: 'flex-start', mt: 1 }}
                >
                  {t('sos.resolve')}
                </Button>
              )}
            </Stack>
          </Grid>
        </Grid>
      </CardContent>
    </Card>
  );
}

export function SosScreen() {
  const { t, i18n } = useTranslation();
  const [params, setParams] = useSearchParams();
  const selected = params.get('alert');
  const select = (alert: SosAlertShown) => setParams({ alert: alert.id }, { replace: true });
  const [resolving, setResolving] = useState<SosAlertShown | null>(null);
  const take = useTakeSos();

  const columns = useMemo<GridColDef<SosAlertShown>[]>(
    () => [
      {
        field: 'reference',
        headerName: t('sos.col.reference'),
        minWidth: 120,
        flex: 0.8,
        sortable: false,
        renderCell: ({ row }) => (
          <Link
            component="button"
            onClick={(event) => {
              event.stopPropagation();
              setParams({ alert: row.id }, { replace: true });
            }}
            data-testid="sos-row-reference"
          >
            {row.reference}
          </Link>
        ),
      },
      { field: 'raised_by_name', headerName: t('sos.col.raised_by'), minWidth: 140, flex: 1, sortable: false },
      {
        field: 'raised_by_role',
        headerName: t('sos.col.role'),
        minWidth: 90,
        sortable: false,
        valueGetter: (_value, row) => t(`sos.role.${row.raised_by_role}`),
      },
      {
        field: 'created_at',
        headerName: t('sos.col.created_at'),
        minWidth: 160,
        flex: 1,
        sortable: false,
        valueFormatter: (value: number) => formatDateTime(value),
      },
      {
        field: 'state',
        headerName: t('sos.col.state'),
        minWidth: 110,
        sortable: false,
        renderCell: ({ row }) => <SosStateChip state={row.state} />,
      },
      { field: 'note', headerName: t('sos.note'), minWidth: 160, flex: 1.2, sortable: false },
    ],
    [t, setParams],
  );

  const actions = (alert: SosAlertShown): PanelRowAction[] => [
    {
      key: 'take',
      label: 'sos.take',
      icon: <PanToolIcon />,
      onClick: () =>
        take.mutate(alert.id, {
          onSuccess: () => notify({ severity: 'success', message: 'sos.taken_done' }),
          onError: (error) => notify({ severity: 'error', message: errorText(error, t, (key) => i18n.exists(key)), translated: true }),
        }),
      disabled: alert.state !== 'open' || take.isPending,
      disabledReason: 'sos_already_taken',
    },
    {
      key: 'resolve',
      label: 'sos.resolve',
      icon: <CheckCircleIcon />,
      onClick: () => setResolving(alert),
      disabled: alert.state === 'resolved',
      disabledReason: 'sos_already_resolved',
    },
  ];

  return (
    <Stack spacing={2}>
      {selected ? (
        <AlertDetails id={selected} onResolve={setResolving} />
      ) : (
        <Alert severity="info" data-testid="sos-select-hint">
          {t('sos.select_hint')}
        </Alert>
      )}
      <PanelTable<SosAlertShown>
        testId="sos-grid"
        columns={columns}
        search={false}
        emptyText="sos.empty"
        source={{ mode: 'server', queryKey: queryKeys.sos.list, fetchPage: fetchSosPage }}
        actions={actions}
        onRowClick={select}
      />
      {resolving && <ResolveDialog alert={resolving} onClose={() => setResolving(null)} />}
    </Stack>
  );
}
