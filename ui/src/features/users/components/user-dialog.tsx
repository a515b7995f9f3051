// Add or edit a user (spec §5 "Admin panel"): the existence check before
// adding (`user_exists`, `email_or_mobile_issue`), e-mail and mobile editable
// only when adding, a driver's vehicle, car type and (admins) fleet; the
// server's refusals shown on their fields.
import { zodResolver } from '@hookform/resolvers/zod';
import {
  Alert,
  Box,
  Button,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  FormControlLabel,
  MenuItem,
  Stack,
  Switch,
  TextField,
  Typography,
  useMediaQuery,
  useTheme,
} from '@mui/material';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Controller, useForm } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { userName } from '@/components/panel/user-picker';
import { api } from '@/lib/api-client';
import { useCarTypes } from '@/lib/app-data';
import { applyServerError, errorText } from '@/lib/server-errors';
import type { Role, User } from '@/types/api';
import type { Page } from '@/types/app';
import { useAddUser, useEditUser, userExists } from '../api/users';
import { formValuesOf, userBody, userFormSchema, type UserFormValues } from '../lib/user-rules';

const FORM_FIELDS = ['firstName', 'lastName', 'email', 'mobile', 'carType', 'vehicleMake', 'vehicleModel', 'vehicleNumber', 'vehicleColor', 'vehicleYear', 'other_info', 'fleetadmin'] as const;

export function UserDialog({ role, viewer, user, onClose }: { role: Role; viewer: Role; user: User | null; onClose: (saved: User | null) => void }) {
  const { t, i18n } = useTranslation();
  const theme = useTheme();
  const phone = useMediaQuery(theme.breakpoints.down('sm'));
  const adding = user === null;
  const add = useAddUser();
  const edit = useEditUser();
  const { data: carTypes = [] } = useCarTypes();
  const fleets = useQuery({
    queryKey: ['users', 'fleets'],
    queryFn: () => api.get<Page<User>>('/users', { role: 'fleetadmin', limit: 500 }),
    enabled: role === 'driver' && viewer === 'admin',
  });
  const [problem, setProblem] = useState<string | null>(null);
  const [licence, setLicence] = useState(user?.licenseImage ?? null);
  const [uploading, setUploading] = useState(false);
  const uploadLicence = async (file: File | undefined) => {
    if (!user) return;
    if (!file) {
      setProblem(t('choose_image_first'));
      return;
    }
    setUploading(true);
    setProblem(null);
    try {
      const body = new FormData();
      body.append('file', file);
      const answer = await api.upload<User | { user: User }>(`/users/${user.id}/license-image`, body);
      setLicence(('user' in answer ? answer.user : answer).licenseImage ?? null);
    } catch (error) {
      setProblem(errorText(error, t, exists));
    } finally {
      setUploading(false);
    }
  };
  const form = useForm<UserFormValues>({ resolver: zodResolver(userFormSchema), defaultValues: formValuesOf(user) });
  const exists = (key: string) => i18n.exists(key);
  const fieldError = (name: keyof UserFormValues) => {
    const message = form.formState.errors[name]?.message;
    return message ? (i18n.exists(message) ? t(message) : message) : undefined;
  };

  const save = form.handleSubmit(async (values) => {
    setProblem(null);
    try {
      if (adding) {
        // Spec §5: the existence check first.
        const taken = await userExists(values.email, values.mobile);
        if (taken.exists) {
          form.setError(taken.email ? 'email' : 'mobile', { type: 'server', message: t('user_exists') });
          return;
        }
        onClose(await add.mutateAsync(userBody(values, role, viewer, true)));
      } else {
        onClose(await edit.mutateAsync({ id: user.id, body: userBody(values, role, viewer, false) }));
      }
    } catch (error) {
      if (!applyServerError(error, form.setError, t, exists, FORM_FIELDS, { contact: 'email' })) setProblem(errorText(error, t, exists));
    }
  });

  const text = (name: (typeof FORM_FIELDS)[number], label: string, options: { disabled?: boolean; dir?: 'ltr' } = {}) => (
    <TextField
      label={t(label)}
      {...form.register(name)}
      disabled={options.disabled}
      error={Boolean(form.formState.errors[name])}
      helperText={fieldError(name)}
      slotProps={{ htmlInput: { 'data-testid': `user-${name}`, dir: options.dir } }}
    />
  );
  const busy = add.isPending || edit.isPending || form.formState.isSubmitting;

  return (
    <Dialog open onClose={() => !busy && onClose(null)} fullWidth maxWidth="sm" fullScreen={phone} data-testid="user-dialog">
      <DialogTitle>{adding ? t(`users.add_${role}`) : t('users.edit', { name: userName(user) })}</DialogTitle>
      <DialogContent>
        <Stack component="form" id="user-form" spacing={2} sx={{ pt: 1 }} onSubmit={save} noValidate>
          {problem && (
            <Alert severity="error" data-testid="user-error">
              {problem}
            </Alert>
          )}
          <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2}>
            {text('firstName', 'profile.first_name')}
            {text('lastName', 'profile.last_name')}
          </Stack>
          {text('email', 'users.email', { disabled: !adding, dir: 'ltr' })}
          {text('mobile', 'users.mobile', { disabled: !adding, dir: 'ltr' })}
          {!adding && <Alert severity="info">{t('users.contact_fixed')}</Alert>}
          {role === 'driver' && (
            <>
              <Controller
                control={form.control}
                name="carType"
                render={({ field }) => (
                  <TextField select label={t('table.car_type')} value={field.value} onChange={field.onChange} slotProps={{ select: { SelectDisplayProps: { 'data-testid': 'user-carType' } as React.HTMLAttributes<HTMLDivElement> } }}>
                    <MenuItem value="">{t('users.no_car_type')}</MenuItem>
                    {carTypes.map((car) => (
                      <MenuItem key={car.name} value={car.name}>
                        {car.name}
                      </MenuItem>
                    ))}
                  </TextField>
                )}
              />
              <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2}>
                {text('vehicleMake', 'users.vehicle_make')}
                {text('vehicleModel', 'users.vehicle_model')}
              </Stack>
              {text('vehicleNumber', 'table.vehicle_number', { dir: 'ltr' })}
              <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2}>
                {text('vehicleColor', 'signup.field.vehicleColor')}
                {text('vehicleYear', 'signup.field.vehicleYear', { dir: 'ltr' })}
              </Stack>
              {text('other_info', 'users.other_info')}
              {!adding && (
                <Stack direction="row" spacing={2} alignItems="center" data-testid="user-licence">
                  {licence ? (
                    <Box component="a" href={licence} target="_blank" rel="noreferrer">
                      <Box component="img" src={licence} alt={t('users.licence')} sx={{ height: 64, borderRadius: 1, border: 1, borderColor: 'divider' }} data-testid="user-licence-image" />
                    </Box>
                  ) : (
                    <Typography variant="body2" color="text.secondary">
                      {t('users.no_licence')}
                    </Typography>
                  )}
                  <Button component="label" variant="outlined" size="small" disabled={uploading}>
                    {t('users.upload_licence')}
                    <input hidden type="file" accept="image/*" onChange={(event) => void uploadLicence(event.target.files?.[0])} data-testid="user-licence-input" />
                  </Button>
                </Stack>
              )}
              {viewer === 'admin' && (
                <Controller
                  control={form.control}
                  name="fleetadmin"
                  render={({ field }) => (
                    <TextField select label={t('users.fleet')} value={field.value} onChange={field.onChange} slotProps={{ select: { SelectDisplayProps: { 'data-testid': 'user-fleetadmin' } as React.HTMLAttributes<HTMLDivElement> } }}>
                      <MenuItem value="">{t('users.no_fleet')}</MenuItem>
                      {(fleets.data?.items ?? []).map((fleet) => (
                        <MenuItem key={fleet.id} value={fleet.id}>
                          {userName(fleet)}
                        </MenuItem>
                      ))}
                    </TextField>
                  )}
                />
              )}
            </>
          )}
          <Controller
            control={form.control}
            name="approved"
            render={({ field }) => (
              <FormControlLabel control={<Switch checked={field.value} onChange={(event) => field.onChange(event.target.checked)} data-testid="user-approved" />} label={t('users.approved')} />
            )}
          />
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button onClick={() => onClose(null)} disabled={busy}>
          {t('common.cancel')}
        </Button>
        <Button type="submit" form="user-form" variant="contained" disabled={busy} data-testid="user-save">
          {t('users.save')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
