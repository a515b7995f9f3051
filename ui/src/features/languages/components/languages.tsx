// Languages (spec §2 "/languagesetting", §5): the table, the JSON editor
// dialog ('JSON Error' on text that does not parse), make default (exactly
// one), and 'Cannot delete default language'. A language added here shows in
// every visitor's language select, since the select reads the server's list.
import AddIcon from '@mui/icons-material/Add';
import DeleteIcon from '@mui/icons-material/Delete';
import EditIcon from '@mui/icons-material/Edit';
import StarIcon from '@mui/icons-material/Star';
import { Alert, Button, Chip, Dialog, DialogActions, DialogContent, DialogTitle, Stack, TextField, useMediaQuery, useTheme } from '@mui/material';
import type { GridColDef } from '@mui/x-data-grid';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { PanelTable } from '@/components/panel/panel-table';
import { confirm } from '@/components/ui/confirm-dialog';
import { notify } from '@/components/ui/notifications/notifications-store';
import { api } from '@/lib/api-client';
import { useLanguages } from '@/lib/app-data';
import { useCriticalEditsAllowed } from '@/lib/critical-edits';
import { queryKeys } from '@/lib/query-keys';
import { errorText } from '@/lib/server-errors';
import type { Language } from '@/types/api';
import { localeProblem, parseDictionary } from '../lib/language-rules';

function useLanguageWrite<Input>(run: (input: Input) => Promise<unknown>) {
  const client = useQueryClient();
  return useMutation({ mutationFn: run, meta: { handlesErrors: true }, onSuccess: () => client.invalidateQueries({ queryKey: queryKeys.languages }) });
}

function LanguageDialog({ language, template, onClose }: { language: Language | null; template: Record<string, string>; onClose: () => void }) {
  const { t, i18n } = useTranslation();
  const theme = useTheme();
  const phone = useMediaQuery(theme.breakpoints.down('sm'));
  const save = useLanguageWrite((body: Record<string, unknown>) => (language ? api.put(`/languages/${language.id}`, body) : api.post('/languages', body)));
  const [name, setName] = useState(language?.langName ?? '');
  const [locale, setLocale] = useState(language?.langLocale ?? '');
  const [text, setText] = useState(JSON.stringify(language?.keyValuePairs ?? template, null, 2));
  const [problem, setProblem] = useState<string | null>(null);
  const submit = () => {
    const dictionary = parseDictionary(text);
    if (!dictionary) {
      setProblem(t('json_error'));
      return;
    }
    if (!name.trim() || localeProblem(locale)) {
      setProblem(t(name.trim() ? 'languages.locale_rule' : 'languages.name_required'));
      return;
    }
    setProblem(null);
    save.mutate(
      { langName: name.trim(), langLocale: locale.trim(), dateLocale: language?.dateLocale ?? locale.trim(), default: language?.default ?? false, keyValuePairs: dictionary },
      {
        onSuccess: () => {
          notify({ severity: 'success', message: 'users.saved' });
          onClose();
        },
        onError: (error) => setProblem(errorText(error, t, (key) => i18n.exists(key))),
      },
    );
  };
  return (
    <Dialog open onClose={save.isPending ? undefined : onClose} fullWidth maxWidth="md" fullScreen={phone} data-testid="language-dialog">
      <DialogTitle>{t(language ? 'languages.edit' : 'languages.add')}</DialogTitle>
      <DialogContent>
        <Stack spacing={2} sx={{ pt: 1 }}>
          {problem && (
            <Alert severity="error" data-testid="language-error">
              {problem}
            </Alert>
          )}
          <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2}>
            <TextField fullWidth label={t('languages.name')} value={name} onChange={(event) => setName(event.target.value)} slotProps={{ htmlInput: { 'data-testid': 'language-name' } }} />
            <TextField fullWidth label={t('languages.locale')} value={locale} onChange={(event) => setLocale(event.target.value)} helperText={t('languages.locale_help')} slotProps={{ htmlInput: { dir: 'ltr', 'data-testid': 'language-locale' } }} />
          </Stack>
          <TextField
            label={t('languages.dictionary')}
            value={text}
            onChange={(event) => setText(event.target.value)}
            multiline
            minRows={12}
            maxRows={24}
            slotProps={{ htmlInput: { dir: 'ltr', spellCheck: false, style: { fontFamily: 'monospace', fontSize: 13 }, 'data-testid': 'language-json' } }}
          />
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose} disabled={save.isPending} data-testid="language-cancel">
          {t('common.cancel')}
        </Button>
        <Button variant="contained" onClick={submit} disabled={save.isPending} data-testid="language-save">
          {t('users.save')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}

export function Languages() {
  const { t, i18n } = useTranslation();
  const criticalEdits = useCriticalEditsAllowed();
  const languages = useLanguages();
  const makeDefault = useLanguageWrite((id: string) => api.post(`/languages/${id}/default`));
  const remove = useLanguageWrite((id: string) => api.delete(`/languages/${id}`));
  const [editing, setEditing] = useState<Language | 'new' | null>(null);
  const failed = (error: unknown) => notify({ severity: 'error', message: errorText(error, t, (key) => i18n.exists(key)), translated: true });
  const template = useMemo(() => languages.data?.find((language) => language.default)?.keyValuePairs ?? {}, [languages.data]);
  const columns = useMemo<GridColDef<Language>[]>(
    () => [
      { field: 'langName', headerName: t('languages.name'), minWidth: 160, flex: 1 },
      { field: 'langLocale', headerName: t('languages.locale'), minWidth: 110 },
      { field: 'keys', headerName: t('languages.texts'), minWidth: 100, type: 'number', valueGetter: (_value, row) => Object.keys(row.keyValuePairs ?? {}).length },
      {
        field: 'default',
        headerName: t('languages.default'),
        minWidth: 120,
        renderCell: ({ row }) => (row.default ? <Chip size="small" color="primary" icon={<StarIcon />} label={t('languages.default')} data-testid="language-default-chip" /> : null),
      },
    ],
    [t],
  );
  return (
    <>
      <PanelTable<Language>
        testId="languages-grid"
        columns={columns}
        emptyText="panel.empty.languages"
        source={{ mode: 'client', rows: languages.data, isPending: languages.isPending, error: languages.error, refetch: () => void languages.refetch() }}
        actions={(language) => [
          { key: 'edit', label: 'users.edit_action', icon: <EditIcon />, onClick: () => setEditing(language), disabled: !criticalEdits, disabledReason: 'demo_mode' },
          {
            key: 'default',
            label: 'languages.make_default',
            icon: <StarIcon />,
            onClick: () => makeDefault.mutate(language.id, { onError: failed }),
            disabled: !criticalEdits || language.default,
            disabledReason: language.default ? 'languages.is_default' : 'demo_mode',
          },
          {
            key: 'delete',
            label: 'users.delete',
            icon: <DeleteIcon />,
            onClick: async () => {
              if (language.default) {
                notify({ severity: 'error', message: 'cannot_delete_default_language' });
                return;
              }
              const yes = await confirm({ title: 'languages.delete_title', message: language.langName, confirmLabel: 'users.delete', destructive: true });
              if (yes) remove.mutate(language.id, { onError: failed });
            },
            disabled: !criticalEdits,
            disabledReason: 'demo_mode',
          },
        ]}
        toolbar={
          <Button variant="contained" startIcon={<AddIcon />} onClick={() => setEditing('new')} disabled={!criticalEdits} data-testid="language-add">
            {t('languages.add')}
          </Button>
        }
      />
      {editing && <LanguageDialog language={editing === 'new' ? null : editing} template={template} onClose={() => setEditing(null)} />}
    </>
  );
}
