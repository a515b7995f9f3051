// The panel's payment settings (issue #37): every gateway of the spec with
// its state, the dialog that sets it up (secrets write-only), and who
// changed what, when.
import EditIcon from '@mui/icons-material/Edit';
import { Alert, Box, Button, Chip, Dialog, DialogActions, DialogContent, DialogTitle, FormControlLabel, Stack, Switch, TextField, Typography, useMediaQuery, useTheme } from '@mui/material';
import type { GridColDef } from '@mui/x-data-grid';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { PanelTable } from '@/components/panel/panel-table';
import { notify } from '@/components/ui/notifications/notifications-store';
import { api } from '@/lib/api-client';
import { useCriticalEditsAllowed } from '@/lib/critical-edits';
import { formatDateTime } from '@/lib/format';
import { queryKeys } from '@/lib/query-keys';
import { errorText } from '@/lib/server-errors';
import type { ChangeView, ChangesPage, GatewayView } from '@/types/api';
import { gatewayEdit, gatewayForm, gatewayStatus, gatewayTitle, missingAfter, type GatewayForm } from '../lib/gateway-form';

const STATUS_COLOURS = { on: 'success', incomplete: 'warning', off: 'default' } as const;

function StatusChip({ gateway }: { gateway: GatewayView }) {
  const { t } = useTranslation();
  const status = gatewayStatus(gateway);
  return <Chip size="small" color={STATUS_COLOURS[status]} label={t(`gateways.status_${status}`)} data-testid={`gateway-status-${gateway.name}`} />;
}

function GatewayDialog({ gateway, onClose }: { gateway: GatewayView; onClose: () => void }) {
  const { t, i18n } = useTranslation();
  const theme = useTheme();
  const phone = useMediaQuery(theme.breakpoints.down('sm'));
  const client = useQueryClient();
  const [form, setForm] = useState<GatewayForm>(() => gatewayForm(gateway));
  const [problem, setProblem] = useState<string | null>(null);
  const save = useMutation({
    mutationFn: () => api.put<GatewayView>(`/payment-gateways/${gateway.name}`, gatewayEdit(gateway, form)),
    meta: { handlesErrors: true },
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: queryKeys.paymentGateways.all });
      void client.invalidateQueries({ queryKey: queryKeys.paymentProviders });
      notify({ severity: 'success', message: 'users.saved' });
      onClose();
    },
    onError: (error) => setProblem(errorText(error, t, (key) => i18n.exists(key))),
  });
  const missing = missingAfter(gateway, form);
  const setValue = (name: string, value: string) => setForm((current) => ({ ...current, values: { ...current.values, [name]: value } }));
  const fromFile = <Typography variant="caption" color="text.secondary">{t('gateways.in_file')}</Typography>;
  return (
    <Dialog open onClose={save.isPending ? undefined : onClose} fullWidth maxWidth="sm" fullScreen={phone} data-testid="gateway-dialog">
      <DialogTitle>{gatewayTitle(gateway.name)}</DialogTitle>
      <DialogContent>
        <Stack spacing={2} sx={{ pt: 1 }}>
          {problem && (
            <Alert severity="error" data-testid="gateway-error">
              {problem}
            </Alert>
          )}
          <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2}>
            <FormControlLabel
              control={<Switch checked={form.active} disabled={gateway.activeInFile} onChange={(event) => setForm({ ...form, active: event.target.checked })} data-testid="gateway-active" />}
              label={t('gateways.active')}
            />
            <FormControlLabel
              control={<Switch checked={form.testing} disabled={gateway.testingInFile} onChange={(event) => setForm({ ...form, testing: event.target.checked })} data-testid="gateway-testing" />}
              label={t('gateways.testing')}
            />
          </Stack>
          {(gateway.activeInFile || gateway.testingInFile) && fromFile}
          {gateway.fields.map((field) =>
            field.kind === 'secret' ? (
              <Box key={field.name}>
                <TextField
                  fullWidth
                  type="password"
                  autoComplete="new-password"
                  label={field.name}
                  value={form.values[field.name] ?? ''}
                  disabled={field.inFile || Boolean(form.clear[field.name])}
                  onChange={(event) => setValue(field.name, event.target.value)}
                  helperText={field.inFile ? t('gateways.in_file') : t(field.set ? 'gateways.secret_set' : 'gateways.secret_unset')}
                  slotProps={{ htmlInput: { dir: 'ltr', 'data-testid': `gateway-field-${field.name}` } }}
                />
                {field.set && !field.inFile && (
                  <FormControlLabel
                    control={<Switch size="small" checked={Boolean(form.clear[field.name])} onChange={(event) => setForm({ ...form, clear: { ...form.clear, [field.name]: event.target.checked } })} data-testid={`gateway-clear-${field.name}`} />}
                    label={t('gateways.clear_secret')}
                  />
                )}
              </Box>
            ) : (
              <TextField
                key={field.name}
                fullWidth
                label={field.name}
                value={form.values[field.name] ?? ''}
                disabled={field.inFile}
                onChange={(event) => setValue(field.name, event.target.value)}
                helperText={field.inFile ? t('gateways.in_file') : field.required ? ' ' : t('gateways.optional')}
                slotProps={{ htmlInput: { dir: 'ltr', 'data-testid': `gateway-field-${field.name}` } }}
              />
            ),
          )}
          {form.active && missing.length > 0 && (
            <Alert severity="warning" data-testid="gateway-missing">
              {t('gateways.missing', { fields: missing.join(', ') })}
            </Alert>
          )}
          {gateway.name !== 'test' && (
            <Box>
              <Typography variant="body2" color="text.secondary">
                {t('gateways.webhook_hint')}
              </Typography>
              <Typography variant="body2" dir="ltr" sx={{ fontFamily: 'monospace', wordBreak: 'break-all' }} data-testid="gateway-webhook">
                {gateway.webhookUrl}
              </Typography>
            </Box>
          )}
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose} disabled={save.isPending} data-testid="gateway-cancel">
          {t('common.cancel')}
        </Button>
        <Button variant="contained" onClick={() => save.mutate()} disabled={save.isPending} data-testid="gateway-save">
          {t('users.save')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}

function GatewayChanges() {
  const { t } = useTranslation();
  const columns = useMemo<GridColDef<ChangeView>[]>(
    () => [
      { field: 'changedAt', headerName: t('gateways.changed_at'), minWidth: 150, flex: 1, sortable: false, valueFormatter: (value: number) => formatDateTime(value) },
      { field: 'gateway', headerName: t('gateways.gateway'), minWidth: 120, flex: 1, sortable: false, valueFormatter: (value: string) => gatewayTitle(value) },
      { field: 'changedByName', headerName: t('gateways.changed_by'), minWidth: 140, flex: 1, sortable: false, valueGetter: (_value, row) => row.changedByName ?? row.changedBy ?? '' },
      { field: 'changed', headerName: t('gateways.changed'), minWidth: 220, flex: 2, sortable: false, valueGetter: (_value, row) => row.changed.join(', ') },
    ],
    [t],
  );
  return (
    <PanelTable<ChangeView>
      testId="gateway-changes"
      columns={columns}
      search={false}
      emptyText="gateways.no_changes"
      source={{
        mode: 'server',
        queryKey: queryKeys.paymentGateways.changes,
        fetchPage: (params, signal) => api.get<ChangesPage>('/payment-gateways/changes', { limit: params.limit, after: params.after }, signal).then((page) => ({ items: page.items, next: page.next ?? null })),
      }}
    />
  );
}

export function PaymentGateways() {
  const { t } = useTranslation();
  const criticalEdits = useCriticalEditsAllowed();
  const gateways = useQuery({ queryKey: queryKeys.paymentGateways.list, queryFn: ({ signal }) => api.get<GatewayView[]>('/payment-gateways', undefined, signal) });
  const [editing, setEditing] = useState<GatewayView | null>(null);
  const columns = useMemo<GridColDef<GatewayView>[]>(
    () => [
      { field: 'name', headerName: t('gateways.gateway'), minWidth: 150, flex: 1, valueFormatter: (value: string) => gatewayTitle(value) },
      { field: 'usable', headerName: t('gateways.status'), minWidth: 130, renderCell: ({ row }) => <StatusChip gateway={row} /> },
      { field: 'testing', headerName: t('gateways.sandbox'), minWidth: 110, type: 'boolean' },
      { field: 'missing', headerName: t('gateways.missing_column'), minWidth: 200, flex: 2, sortable: false, valueGetter: (_value, row) => row.missing.join(', ') },
      { field: 'updatedAt', headerName: t('gateways.updated_at'), minWidth: 150, valueFormatter: (value: number | undefined) => (value ? formatDateTime(value) : '') },
    ],
    [t],
  );
  return (
    <Stack spacing={3}>
      <Typography color="text.secondary">{t('gateways.intro')}</Typography>
      <PanelTable<GatewayView>
        testId="gateways-grid"
        columns={columns}
        getRowId={(row) => row.name}
        emptyText="gateways.none"
        source={{ mode: 'client', rows: gateways.data, isPending: gateways.isPending, error: gateways.error, refetch: () => void gateways.refetch() }}
        actions={(gateway) => [
          {
            key: 'edit',
            label: 'users.edit_action',
            icon: <EditIcon />,
            onClick: () => setEditing(gateway),
            disabled: !criticalEdits || gateway.name === 'test',
            disabledReason: gateway.name === 'test' ? 'gateways.test_in_file' : 'demo_mode',
          },
        ]}
      />
      <Box>
        <Typography variant="h6" component="h2" sx={{ mb: 1 }}>
          {t('gateways.history')}
        </Typography>
        <GatewayChanges />
      </Box>
      {editing && <GatewayDialog gateway={editing} onClose={() => setEditing(null)} />}
    </Stack>
  );
}
