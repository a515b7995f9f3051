// One form for the settings and for app info: each field with its help line,
// checked against the server's bounds first, only the changes sent, the
// server's refusal shown on its field; the whole app sees the new values at once.
import { Alert, Box, Button, Card, CardContent, CardHeader, FormControlLabel, Grid, InputAdornment, ListItemText, MenuItem, Radio, RadioGroup, Stack, Switch, TextField, Typography } from '@mui/material';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { notify } from '@/components/ui/notifications/notifications-store';
import { ServerErrorAlert } from '@/components/ui/server-error-alert';
import { ApiError, api } from '@/lib/api-client';
import { useCriticalEditsAllowed } from '@/lib/critical-edits';
import { queryKeys } from '@/lib/query-keys';
import { errorText } from '@/lib/server-errors';
import { changedFields, fieldProblem, formValues, isUsed, visibleSections, type FormValues, type SettingsField, type SettingsSection } from '../lib/settings-fields';

export function SettingsForm({ sections: allSections, path, testId }: { sections: SettingsSection[]; path: '/settings' | '/appinfo'; testId: string }) {
  const { t, i18n } = useTranslation();
  const client = useQueryClient();
  const criticalEdits = useCriticalEditsAllowed();
  const source = useQuery({ queryKey: ['admin', path], queryFn: () => api.get<Record<string, unknown>>(path) });
  // What this server shows: the demo city's own section only there.
  const sections = useMemo(() => visibleSections(allSections, source.data), [allSections, source.data]);
  const initial = useMemo(() => (source.data ? formValues(sections, source.data) : null), [source.data, sections]);
  const [values, setValues] = useState<FormValues>({});
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [problem, setProblem] = useState<string | null>(null);
  useEffect(() => {
    if (initial) setValues(initial);
  }, [initial]);
  const save = useMutation({
    mutationFn: (body: Record<string, unknown>) => api.patch<Record<string, unknown>>(path, body),
    meta: { handlesErrors: true },
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: ['admin', path] });
      void client.invalidateQueries({ queryKey: queryKeys.settings });
    },
  });

  if (source.isPending) return <Typography color="text.secondary">{t('common.loading')}</Typography>;
  if (source.error || !initial) return <ServerErrorAlert error={source.error} onRetry={() => void source.refetch()} />;

  const set = (name: string, value: string | boolean) => {
    setValues((current) => ({ ...current, [name]: value }));
    setErrors(({ [name]: _dropped, ...rest }) => rest);
  };
  const submit = (event: React.FormEvent) => {
    event.preventDefault();
    setProblem(null);
    const found: Record<string, string> = {};
    for (const field of sections.flatMap((section) => section.fields)) {
      const key = fieldProblem(field, values[field.name]);
      if (key) found[field.name] = t(key, { min: field.min, max: field.max });
    }
    setErrors(found);
    if (Object.keys(found).length > 0) return;
    const body = changedFields(sections, initial, values);
    if (Object.keys(body).length === 0) {
      notify({ severity: 'info', message: 'settings.nothing_changed' });
      return;
    }
    save.mutate(body, {
      onSuccess: () => notify({ severity: 'success', message: 'settings.saved' }),
      onError: (error) => {
        const text = errorText(error, t, (key) => i18n.exists(key));
        if (error instanceof ApiError && error.field && error.field in values) setErrors({ [error.field]: text });
        else setProblem(text);
      },
    });
  };

  const input = (field: SettingsField) => {
    const label = t(`settings.field.${field.name}`);
    const help = errors[field.name] ?? t(`settings.help.${field.name}`);
    const common = { 'data-testid': `setting-${field.name}` };
    // Kept, but greyed out, while the policy chosen does not use it.
    const disabled = !isUsed(field, values);
    if (field.kind === 'switch') {
      return (
        <Box>
          <FormControlLabel
            control={<Switch checked={Boolean(values[field.name])} disabled={disabled} onChange={(event) => set(field.name, event.target.checked)} slotProps={{ input: common as React.InputHTMLAttributes<HTMLInputElement> }} />}
            label={label}
          />
          <Typography variant="caption" color="text.secondary" display="block" sx={{ pl: 6.5, mt: -0.5 }}>
            {help}
          </Typography>
        </Box>
      );
    }
    if (field.kind === 'multi') {
      const chosen = String(values[field.name] ?? '').split(',').filter(Boolean);
      return (
        <TextField
          select
          fullWidth
          label={label}
          value={chosen}
          onChange={(event) => {
            const picked = event.target.value as unknown as string[];
            // Kept in the options' order, whatever order they were picked in.
            set(field.name, field.options!.filter((option) => picked.includes(option)).join(','));
          }}
          helperText={help}
          disabled={disabled}
          slotProps={{
            select: {
              multiple: true,
              SelectDisplayProps: common as React.HTMLAttributes<HTMLDivElement>,
              renderValue: (value) => (value as string[]).map((option) => t(`document_kind_${option}`)).join(', '),
            },
          }}
        >
          {field.options!.map((option) => (
            <MenuItem key={option} value={option} data-testid={`option-${option}`}>
              <ListItemText primary={t(`document_kind_${option}`)} />
            </MenuItem>
          ))}
        </TextField>
      );
    }
    if (field.kind === 'choice') {
      // Every option in view with what it means: a switch of what the whole platform is.
      return (
        <Box>
          <RadioGroup
            row
            value={String(values[field.name] ?? '')}
            onChange={(event) => set(field.name, event.target.value)}
            aria-label={label}
            data-testid={`setting-${field.name}`}
            sx={{ gap: 1.5 }}
          >
            {field.options!.map((option) => {
              const chosen = values[field.name] === option;
              return (
                <FormControlLabel
                  key={option}
                  value={option}
                  disabled={disabled}
                  control={<Radio slotProps={{ input: { 'data-testid': `setting-${field.name}-${option}` } as React.InputHTMLAttributes<HTMLInputElement> }} />}
                  label={<ListItemText primary={t(`settings.optionName.${option}`)} secondary={t(`settings.option.${option}`)} slotProps={{ primary: { fontWeight: 700 } }} />}
                  sx={{
                    m: 0,
                    pr: 2,
                    flex: '1 1 240px',
                    alignItems: 'flex-start',
                    border: 2,
                    borderRadius: 2,
                    borderColor: chosen ? 'primary.main' : 'divider',
                    bgcolor: chosen ? 'action.selected' : undefined,
                    '& .MuiRadio-root': { mt: 0.5 },
                  }}
                />
              );
            })}
          </RadioGroup>
          <Typography variant="body2" color="text.secondary" sx={{ mt: 1 }}>
            {help}
          </Typography>
        </Box>
      );
    }
    if (field.kind === 'select') {
      return (
        <TextField
          select
          fullWidth
          label={label}
          value={values[field.name] ?? ''}
          onChange={(event) => set(field.name, event.target.value)}
          helperText={help}
          disabled={disabled}
          slotProps={{
            select: {
              SelectDisplayProps: common as React.HTMLAttributes<HTMLDivElement>,
              // The closed field shows the name; the menu says what each does.
              renderValue: (value) => t(`settings.optionName.${String(value)}`),
            },
          }}
        >
          {field.options!.map((option) => (
            <MenuItem key={option} value={option} data-testid={`option-${option}`} sx={{ whiteSpace: 'normal', maxWidth: 560 }}>
              <ListItemText primary={t(`settings.optionName.${option}`)} secondary={t(`settings.option.${option}`)} />
            </MenuItem>
          ))}
        </TextField>
      );
    }
    return (
      <TextField
        fullWidth
        label={label}
        value={values[field.name] ?? ''}
        onChange={(event) => set(field.name, event.target.value)}
        error={Boolean(errors[field.name])}
        helperText={help}
        disabled={disabled}
        slotProps={{
          htmlInput: { ...common, inputMode: field.kind === 'number' ? 'decimal' : undefined, dir: field.kind === 'number' ? 'ltr' : undefined },
          input: field.unit ? { endAdornment: <InputAdornment position="end">{t(field.unit)}</InputAdornment> } : undefined,
        }}
      />
    );
  };

  return (
    <Box component="form" onSubmit={submit} noValidate data-testid={testId}>
      <Stack spacing={2}>
        {!criticalEdits && <Alert severity="info">{t('demo_mode')}</Alert>}
        {problem && (
          <Alert severity="error" data-testid="settings-error">
            {problem}
          </Alert>
        )}
        {sections.map((section) => (
          <Card key={section.title} variant="outlined">
            <CardHeader title={t(section.title)} slotProps={{ title: { variant: 'h6' } }} />
            <CardContent sx={{ pt: 0 }}>
              <Grid container spacing={2}>
                {section.fields.map((field) => (
                  <Grid key={field.name} size={{ xs: 12, md: field.kind === 'choice' ? 12 : 6 }}>
                    {input(field)}
                  </Grid>
                ))}
              </Grid>
            </CardContent>
          </Card>
        ))}
        <Box>
          <Button type="submit" variant="contained" size="large" disabled={!criticalEdits || save.isPending} data-testid="settings-save">
            {t('users.save')}
          </Button>
        </Box>
      </Stack>
    </Box>
  );
}
