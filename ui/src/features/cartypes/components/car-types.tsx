// Car types (spec §2 "Car types", §3, §5): the table with each type's image
// (uploaded here), rates and fee; the form with the cancellation slabs always
// and, on a delivery platform, the parcel types, the options and whether a
// booking must choose one; the server's rules (car_type_exists,
// car_type_in_use, slab order) shown where they apply.
import AddIcon from '@mui/icons-material/Add';
import DeleteIcon from '@mui/icons-material/Delete';
import EditIcon from '@mui/icons-material/Edit';
import ImageIcon from '@mui/icons-material/Image';
import RemoveCircleOutlineIcon from '@mui/icons-material/RemoveCircleOutline';
import { Alert, Box, Button, Dialog, DialogActions, DialogContent, DialogTitle, FormControlLabel, IconButton, MenuItem, Stack, Switch, TextField, Typography, useMediaQuery, useTheme } from '@mui/material';
import type { GridColDef } from '@mui/x-data-grid';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { PanelTable } from '@/components/panel/panel-table';
import { confirm } from '@/components/ui/confirm-dialog';
import { notify } from '@/components/ui/notifications/notifications-store';
import { api } from '@/lib/api-client';
import { useCarTypes, useSettings } from '@/lib/app-data';
import { useCriticalEditsAllowed } from '@/lib/critical-edits';
import { formatMoney } from '@/lib/format';
import { queryKeys } from '@/lib/query-keys';
import { errorText } from '@/lib/server-errors';
import type { CarType } from '@/types/api';
import { carTypeBody, carTypeForm, carTypeProblems, RATE_FIELDS, type CarTypeForm, type Choice, type Slab } from '../lib/car-type-rules';

function useCarTypeWrite<Input>(run: (input: Input) => Promise<unknown>) {
  const client = useQueryClient();
  return useMutation({ mutationFn: run, meta: { handlesErrors: true }, onSuccess: () => client.invalidateQueries({ queryKey: queryKeys.carTypes }) });
}

/** Rows of two fields with add and remove: the slabs, parcel types and options. */
function RowsEditor<Row extends Slab | Choice>({
  title,
  rows,
  fields,
  blank,
  problems,
  prefix,
  onChange,
}: {
  title: string;
  rows: Row[];
  fields: [keyof Row & string, string][];
  blank: Row;
  problems: Record<string, string>;
  prefix: string;
  onChange: (rows: Row[]) => void;
}) {
  const { t } = useTranslation();
  return (
    <Box data-testid={`${prefix}-rows`}>
      <Stack direction="row" alignItems="center" justifyContent="space-between">
        <Typography fontWeight={600}>{t(title)}</Typography>
        <Button size="small" startIcon={<AddIcon />} onClick={() => onChange([...rows, { ...blank }])} data-testid={`${prefix}-add`}>
          {t('cartypes.add_row')}
        </Button>
      </Stack>
      {problems[prefix] && (
        <Typography color="error" variant="body2">
          {t(problems[prefix])}
        </Typography>
      )}
      <Stack spacing={1} sx={{ mt: 1 }}>
        {rows.map((row, index) => (
          <Stack key={index} direction="row" spacing={1} alignItems="flex-start">
            {fields.map(([name, label]) => (
              <TextField
                key={name}
                size="small"
                label={t(label)}
                value={row[name] as string}
                onChange={(event) => onChange(rows.map((current, at) => (at === index ? { ...current, [name]: event.target.value } : current)))}
                error={Boolean(problems[`${prefix}.${index}`])}
                sx={{ flex: 1 }}
                slotProps={{ htmlInput: { 'data-testid': `${prefix}-${index}-${name}`, dir: name === 'description' ? undefined : 'ltr' } }}
              />
            ))}
            <IconButton aria-label={t('users.delete')} onClick={() => onChange(rows.filter((_, at) => at !== index))}>
              <RemoveCircleOutlineIcon />
            </IconButton>
          </Stack>
        ))}
      </Stack>
    </Box>
  );
}

function CarTypeDialog({ car, onClose }: { car: CarType | null; onClose: () => void }) {
  const { t, i18n } = useTranslation();
  const theme = useTheme();
  const phone = useMediaQuery(theme.breakpoints.down('sm'));
  const settings = useSettings();
  const delivery = settings.appcat === 'delivery';
  const save = useCarTypeWrite((body: Record<string, unknown>) => (car ? api.put(`/cartypes/${car.id}`, body) : api.post('/cartypes', body)));
  const [form, setForm] = useState<CarTypeForm>(() => carTypeForm(car));
  const [problems, setProblems] = useState<Record<string, string>>({});
  const [serverProblem, setServerProblem] = useState<string | null>(null);
  const set = <Key extends keyof CarTypeForm>(name: Key, value: CarTypeForm[Key]) => setForm((current) => ({ ...current, [name]: value }));
  const submit = () => {
    const found = carTypeProblems(form);
    setProblems(found);
    setServerProblem(null);
    if (Object.keys(found).length > 0) return;
    save.mutate(carTypeBody(form, delivery), {
      onSuccess: () => {
        notify({ severity: 'success', message: 'users.saved' });
        onClose();
      },
      onError: (error) => {
        const text = errorText(error, t, (key) => i18n.exists(key));
        const field = (error as { field?: string }).field;
        if (field && field in form && !Array.isArray(form[field as keyof CarTypeForm])) setProblems({ [field]: text });
        else setServerProblem(text);
      },
    });
  };
  const text = (name: 'name' | 'extra_info' | (typeof RATE_FIELDS)[number], label: string) => (
    <TextField
      fullWidth
      label={t(label)}
      value={form[name]}
      onChange={(event) => set(name, event.target.value)}
      error={Boolean(problems[name])}
      helperText={problems[name] ? (i18n.exists(problems[name]) ? t(problems[name]) : problems[name]) : ' '}
      slotProps={{ htmlInput: { 'data-testid': `cartype-${name}`, dir: name === 'name' || name === 'extra_info' ? undefined : 'ltr', inputMode: name === 'name' || name === 'extra_info' ? undefined : 'decimal' } }}
    />
  );
  return (
    <Dialog open onClose={save.isPending ? undefined : onClose} fullWidth maxWidth="md" fullScreen={phone} data-testid="cartype-dialog">
      <DialogTitle>{t(car ? 'cartypes.edit' : 'cartypes.add')}</DialogTitle>
      <DialogContent>
        <Stack spacing={1} sx={{ pt: 1 }}>
          {serverProblem && (
            <Alert severity="error" data-testid="cartype-error">
              {serverProblem}
            </Alert>
          )}
          <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2}>
            {text('name', 'cartypes.name')}
            {text('extra_info', 'cartypes.extra_info')}
          </Stack>
          <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2}>
            {text('base_fare', 'cartypes.base_fare')}
            {text('min_fare', 'cartypes.min_fare')}
          </Stack>
          <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2}>
            {text('rate_per_unit_distance', settings.convert_to_mile ? 'cartypes.rate_per_mile' : 'cartypes.rate_per_km')}
            {text('rate_per_hour', 'cartypes.rate_per_hour')}
          </Stack>
          <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2}>
            {text('convenience_fees', 'table.convenience_fee')}
            <TextField select fullWidth label={t('cartypes.fee_type')} value={form.convenience_fee_type} onChange={(event) => set('convenience_fee_type', event.target.value as 'flat' | 'percentage')} helperText=" ">
              <MenuItem value="flat">{t('catalogue.flat')}</MenuItem>
              <MenuItem value="percentage">{t('catalogue.percentage')}</MenuItem>
            </TextField>
          </Stack>
          <RowsEditor<Slab>
            title="cartypes.cancel_slabs"
            rows={form.cancelSlab}
            fields={[['minsDelayed', 'cartypes.minutes'], ['amount', 'cartypes.fee']]}
            blank={{ minsDelayed: '', amount: '' }}
            problems={problems}
            prefix="cancelSlab"
            onChange={(rows) => set('cancelSlab', rows)}
          />
          {delivery && (
            <>
              <RowsEditor<Choice> title="cartypes.parcel_types" rows={form.parcelTypes} fields={[['description', 'catalogue.promo_description'], ['amount', 'cartypes.amount']]} blank={{ description: '', amount: '' }} problems={problems} prefix="parcelTypes" onChange={(rows) => set('parcelTypes', rows)} />
              <RowsEditor<Choice> title="cartypes.options" rows={form.options} fields={[['description', 'catalogue.promo_description'], ['amount', 'cartypes.amount']]} blank={{ description: '', amount: '' }} problems={problems} prefix="options" onChange={(rows) => set('options', rows)} />
              <FormControlLabel
                control={<Switch checked={form.optionRequired} onChange={(event) => set('optionRequired', event.target.checked)} data-testid="cartype-option-required" />}
                label={t('cartypes.option_required')}
              />
            </>
          )}
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose} disabled={save.isPending} data-testid="cartype-cancel">
          {t('common.cancel')}
        </Button>
        <Button variant="contained" onClick={submit} disabled={save.isPending} data-testid="cartype-save">
          {t('users.save')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}

export function CarTypes() {
  const { t, i18n } = useTranslation();
  const settings = useSettings();
  const criticalEdits = useCriticalEditsAllowed();
  const cars = useCarTypes();
  const remove = useCarTypeWrite((id: string) => api.delete(`/cartypes/${id}`));
  const upload = useCarTypeWrite(({ id, file }: { id: string; file: File }) => {
    const form = new FormData();
    form.append('file', file);
    return api.upload(`/cartypes/${id}/image`, form);
  });
  const [editing, setEditing] = useState<CarType | 'new' | null>(null);
  const picker = useRef<HTMLInputElement>(null);
  const [uploadFor, setUploadFor] = useState<string | null>(null);
  const failed = (error: unknown) => notify({ severity: 'error', message: errorText(error, t, (key) => i18n.exists(key)), translated: true });
  const columns = useMemo<GridColDef<CarType>[]>(
    () => [
      {
        field: 'image',
        headerName: t('cartypes.image'),
        width: 90,
        sortable: false,
        renderCell: ({ row }) => (row.image ? <Box component="img" src={row.image} alt={row.name} sx={{ height: 36, maxWidth: 72, objectFit: 'contain' }} data-testid="cartype-image" /> : null),
      },
      { field: 'name', headerName: t('cartypes.name'), minWidth: 120, flex: 1 },
      ...RATE_FIELDS.map<GridColDef<CarType>>((field) => ({
        field,
        headerName: t(field === 'convenience_fees' ? 'table.convenience_fee' : `cartypes.${field === 'rate_per_unit_distance' ? (settings.convert_to_mile ? 'rate_per_mile' : 'rate_per_km') : field}`),
        minWidth: 110,
        type: 'number',
        valueFormatter: (value: number, row: CarType) => (field === 'convenience_fees' && row.convenience_fee_type === 'percentage' ? `${value}%` : formatMoney(value, settings)),
      })),
      { field: 'cancelSlab', headerName: t('cartypes.cancel_slabs'), minWidth: 160, sortable: false, valueGetter: (_value, row) => (row.cancelSlab ?? []).map((slab) => `${slab.minsDelayed}′ ${formatMoney(slab.amount, settings)}`).join(' · ') },
    ],
    [t, settings],
  );
  return (
    <>
      <input
        ref={picker}
        type="file"
        accept="image/*"
        hidden
        data-testid="cartype-image-input"
        onChange={(event) => {
          const file = event.target.files?.[0];
          event.target.value = '';
          if (!uploadFor) return;
          if (!file) {
            notify({ severity: 'error', message: 'choose_image_first' });
            return;
          }
          upload.mutate({ id: uploadFor, file }, { onSuccess: () => notify({ severity: 'success', message: 'users.saved' }), onError: failed });
        }}
      />
      <PanelTable<CarType>
        testId="cartypes-grid"
        columns={columns}
        emptyText="panel.empty.cartypes"
        source={{ mode: 'client', rows: cars.data, isPending: cars.isPending, error: cars.error, refetch: () => void cars.refetch() }}
        actions={(car) => [
          { key: 'edit', label: 'users.edit_action', icon: <EditIcon />, onClick: () => setEditing(car), disabled: !criticalEdits, disabledReason: 'demo_mode' },
          {
            key: 'image',
            label: 'cartypes.upload_image',
            icon: <ImageIcon />,
            onClick: () => {
              setUploadFor(car.id);
              picker.current?.click();
            },
            disabled: !criticalEdits,
            disabledReason: 'demo_mode',
          },
          {
            key: 'delete',
            label: 'users.delete',
            icon: <DeleteIcon />,
            onClick: async () => {
              const yes = await confirm({ title: 'cartypes.delete_title', message: car.name, confirmLabel: 'users.delete', destructive: true });
              if (yes) remove.mutate(car.id, { onError: failed });
            },
            disabled: !criticalEdits,
            disabledReason: 'demo_mode',
          },
        ]}
        toolbar={
          <Button variant="contained" startIcon={<AddIcon />} onClick={() => setEditing('new')} disabled={!criticalEdits} data-testid="cartype-add">
            {t('cartypes.add')}
          </Button>
        }
      />
      {editing && <CarTypeDialog car={editing === 'new' ? null : editing} onClose={() => setEditing(null)} />}
    </>
  );
}
