// Promos (spec §2 "/promos", §5): every code with its discount, cap, minimum
// order, validity and usage, and how many riders used it (read-only); add,
// edit and delete. Adding stays open in demo mode, as the server allows.
import { zodResolver } from '@hookform/resolvers/zod';
import AddIcon from '@mui/icons-material/Add';
import DeleteIcon from '@mui/icons-material/Delete';
import EditIcon from '@mui/icons-material/Edit';
import { Alert, Button, Dialog, DialogActions, DialogContent, DialogTitle, MenuItem, Stack, TextField, useMediaQuery, useTheme } from '@mui/material';
import type { GridColDef } from '@mui/x-data-grid';
import { useMemo, useState } from 'react';
import { Controller, useForm } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { PanelTable } from '@/components/panel/panel-table';
import { confirm } from '@/components/ui/confirm-dialog';
import { notify } from '@/components/ui/notifications/notifications-store';
import { useSettings } from '@/lib/app-data';
import { useCriticalEditsAllowed } from '@/lib/critical-edits';
import { formatDateTime, formatMoney } from '@/lib/format';
import { applyServerError, errorText } from '@/lib/server-errors';
import { useDeletePromo, usePromos, useSavePromo } from '../api/catalogue';
import { promoBody, promoSchema, promoValues, type PromoValues } from '../lib/promo-rules';
import type { Promo } from '@/types/api';

const FIELDS = ['promo_name', 'promo_description', 'promo_discount_type', 'promo_discount_value', 'max_promo_discount_value', 'min_order', 'promo_validity', 'promo_usage_limit'] as const;

function PromoDialog({ promo, onClose }: { promo: Promo | null; onClose: () => void }) {
  const { t, i18n } = useTranslation();
  const theme = useTheme();
  const phone = useMediaQuery(theme.breakpoints.down('sm'));
  const save = useSavePromo();
  const [problem, setProblem] = useState<string | null>(null);
  const form = useForm<PromoValues>({ resolver: zodResolver(promoSchema), defaultValues: promoValues(promo, Date.now()) });
  const exists = (key: string) => i18n.exists(key);
  const message = (name: keyof PromoValues) => {
    const text = form.formState.errors[name]?.message;
    return text && exists(text) ? t(text) : text;
  };
  const submit = form.handleSubmit((values) => {
    setProblem(null);
    save.mutate(
      { id: promo?.id ?? null, body: promoBody(values) },
      {
        onSuccess: () => {
          notify({ severity: 'success', message: 'users.saved' });
          onClose();
        },
        onError: (error) => {
          if (!applyServerError(error, form.setError, t, exists, FIELDS)) setProblem(errorText(error, t, exists));
        },
      },
    );
  });
  const field = (name: (typeof FIELDS)[number], label: string, props: Record<string, unknown> = {}) => (
    <TextField
      label={t(label)}
      {...form.register(name)}
      error={Boolean(form.formState.errors[name])}
      helperText={message(name)}
      slotProps={{ htmlInput: { 'data-testid': `promo-${name}`, ...props } }}
      fullWidth
    />
  );
  return (
    <Dialog open onClose={save.isPending ? undefined : onClose} fullWidth maxWidth="sm" fullScreen={phone} data-testid="promo-dialog">
      <DialogTitle>{t(promo ? 'catalogue.edit_promo' : 'catalogue.add_promo')}</DialogTitle>
      <DialogContent>
        <Stack component="form" id="promo-form" spacing={2} sx={{ pt: 1 }} onSubmit={submit} noValidate>
          {problem && <Alert severity="error" data-testid="promo-error">{problem}</Alert>}
          {field('promo_name', 'catalogue.promo_name', { dir: 'ltr', style: { textTransform: 'uppercase' } })}
          {field('promo_description', 'catalogue.promo_description')}
          <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2}>
            <Controller
              control={form.control}
              name="promo_discount_type"
              render={({ field: type }) => (
                <TextField select fullWidth label={t('catalogue.discount_type')} value={type.value} onChange={type.onChange} slotProps={{ select: { SelectDisplayProps: { 'data-testid': 'promo-type' } as React.HTMLAttributes<HTMLDivElement> } }}>
                  <MenuItem value="percentage">{t('catalogue.percentage')}</MenuItem>
                  <MenuItem value="flat">{t('catalogue.flat')}</MenuItem>
                </TextField>
              )}
            />
            {field('promo_discount_value', 'catalogue.discount_value', { inputMode: 'decimal', dir: 'ltr' })}
          </Stack>
          <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2}>
            {field('max_promo_discount_value', 'catalogue.max_discount', { inputMode: 'decimal', dir: 'ltr' })}
            {field('min_order', 'catalogue.min_order', { inputMode: 'decimal', dir: 'ltr' })}
          </Stack>
          <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2}>
            <TextField
              type="date"
              label={t('catalogue.validity')}
              {...form.register('promo_validity')}
              error={Boolean(form.formState.errors.promo_validity)}
              helperText={message('promo_validity')}
              fullWidth
              slotProps={{ inputLabel: { shrink: true }, htmlInput: { 'data-testid': 'promo-promo_validity' } }}
            />
            {field('promo_usage_limit', 'catalogue.usage_limit', { inputMode: 'numeric', dir: 'ltr' })}
          </Stack>
          {promo && <Alert severity="info">{t('catalogue.used_by', { count: promo.user_avail })}</Alert>}
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose} disabled={save.isPending} data-testid="promo-cancel">
          {t('common.cancel')}
        </Button>
        <Button type="submit" form="promo-form" variant="contained" disabled={save.isPending} data-testid="promo-save">
          {t('users.save')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}

export function Promos() {
  const { t, i18n } = useTranslation();
  const settings = useSettings();
  const criticalEdits = useCriticalEditsAllowed();
  const promos = usePromos();
  const remove = useDeletePromo();
  const [editing, setEditing] = useState<Promo | 'new' | null>(null);
  const columns = useMemo<GridColDef<Promo>[]>(
    () => [
      { field: 'promo_name', headerName: t('catalogue.promo_name'), minWidth: 130, flex: 1 },
      { field: 'promo_description', headerName: t('catalogue.promo_description'), minWidth: 180, flex: 1.5 },
      {
        field: 'promo_discount_value',
        headerName: t('catalogue.discount_value'),
        minWidth: 120,
        valueGetter: (_value, row) => (row.promo_discount_type === 'percentage' ? `${row.promo_discount_value}%` : formatMoney(row.promo_discount_value, settings)),
      },
      { field: 'max_promo_discount_value', headerName: t('catalogue.max_discount'), minWidth: 120, valueFormatter: (value: number) => (value ? formatMoney(value, settings) : '—') },
      { field: 'min_order', headerName: t('catalogue.min_order'), minWidth: 110, valueFormatter: (value: number) => formatMoney(value, settings) },
      { field: 'promo_validity', headerName: t('catalogue.validity'), minWidth: 150, valueFormatter: (value: number) => formatDateTime(value) },
      { field: 'promo_usage_limit', headerName: t('catalogue.usage_limit'), minWidth: 100, type: 'number', valueFormatter: (value: number) => (value ? String(value) : '∞') },
      { field: 'user_avail', headerName: t('catalogue.used'), minWidth: 90, type: 'number' },
    ],
    [t, settings],
  );
  return (
    <>
      <PanelTable<Promo>
        testId="promos-grid"
        columns={columns}
        emptyText="panel.empty.promos"
        source={{ mode: 'client', rows: promos.data, isPending: promos.isPending, error: promos.error, refetch: () => void promos.refetch() }}
        actions={(promo) => [
          { key: 'edit', label: 'users.edit_action', icon: <EditIcon />, onClick: () => setEditing(promo), disabled: !criticalEdits, disabledReason: 'demo_mode' },
          {
            key: 'delete',
            label: 'users.delete',
            icon: <DeleteIcon />,
            onClick: async () => {
              const yes = await confirm({ title: 'catalogue.delete_promo', message: promo.promo_name, confirmLabel: 'users.delete', destructive: true });
              if (yes) remove.mutate(promo.id, { onError: (error) => notify({ severity: 'error', message: errorText(error, t, (key) => i18n.exists(key)), translated: true }) });
            },
            disabled: !criticalEdits,
            disabledReason: 'demo_mode',
          },
        ]}
        toolbar={
          <Button variant="contained" startIcon={<AddIcon />} onClick={() => setEditing('new')} data-testid="promo-add">
            {t('catalogue.add_promo')}
          </Button>
        }
      />
      {editing && <PromoDialog promo={editing === 'new' ? null : editing} onClose={() => setEditing(null)} />}
    </>
  );
}
