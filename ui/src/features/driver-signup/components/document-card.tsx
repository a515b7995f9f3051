// One document of a driver: what is on file (with its review status) and a
// form to send it, or a new one: camera-friendly image pickers, the licence
// number and the expiry where the kind has them, upload progress and the
// server's refusal shown at the field it names.
import CameraAltIcon from '@mui/icons-material/CameraAlt';
import CheckCircleIcon from '@mui/icons-material/CheckCircle';
import { Alert, Box, Button, Card, CardContent, Chip, LinearProgress, Stack, TextField, Typography } from '@mui/material';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { isApiError } from '@/lib/api-client';
import type { DocumentKind, DriverDocument } from '@/types/api';
import { useUploadDocument } from '../api/applications';
import { attentionOf, dayOf, draftErrors, emptyDraft, expires, hasBack, hasNumber, type DocumentDraft } from '../lib/documents';

const STATUS_COLOR = { pending: 'info', approved: 'success', rejected: 'error' } as const;

function Picker({
  label,
  file,
  error,
  onPick,
  testId,
}: {
  label: string;
  file: File | null;
  error?: string;
  onPick: (file: File | null) => void;
  testId: string;
}) {
  const { t } = useTranslation();
  return (
    <Stack spacing={0.5} sx={{ flex: 1, minWidth: 0 }}>
      <Button component="label" variant={file ? 'contained' : 'outlined'} color={error ? 'error' : 'primary'} startIcon={file ? <CheckCircleIcon /> : <CameraAltIcon />} sx={{ minHeight: 48, justifyContent: 'flex-start' }}>
        <Box component="span" sx={{ overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' }}>
          {file ? file.name : label}
        </Box>
        <input
          hidden
          type="file"
          accept="image/*"
          data-testid={testId}
          onChange={(event) => {
            onPick(event.target.files?.[0] ?? null);
            event.target.value = '';
          }}
        />
      </Button>
      {error && (
        <Typography variant="caption" color="error" role="alert">
          {t(error)}
        </Typography>
      )}
    </Stack>
  );
}

export function DocumentCard({ kind, current, onUploaded }: { kind: DocumentKind; current?: DriverDocument; onUploaded?: (document: DriverDocument) => void }) {
  const { t } = useTranslation();
  const upload = useUploadDocument();
  const [editing, setEditing] = useState(!current);
  const [draft, setDraft] = useState<DocumentDraft>(emptyDraft);
  const [errors, setErrors] = useState<Partial<Record<keyof DocumentDraft, string>>>({});
  const [serverError, setServerError] = useState<string | null>(null);
  const [progress, setProgress] = useState<number | null>(null);
  const attention = current ? attentionOf(current, Date.now()) : null;

  const change = (patch: Partial<DocumentDraft>) => {
    setDraft((before) => ({ ...before, ...patch }));
    setErrors({});
    setServerError(null);
  };

  const send = () => {
    const found = draftErrors(kind, draft);
    setErrors(found);
    if (Object.keys(found).length > 0 || !draft.front) return;
    setProgress(0);
    upload.mutate(
      {
        kind,
        fields: { front: draft.front, back: draft.back, number: draft.number.trim(), expiry: draft.expiry },
        onProgress: setProgress,
      },
      {
        onSuccess: (document) => {
          setProgress(null);
          setDraft(emptyDraft());
          setEditing(false);
          onUploaded?.(document);
        },
        onError: (error) => {
          setProgress(null);
          const code = isApiError(error) ? error.code : 'internal_error';
          const field = isApiError(error) ? error.field : undefined;
          const target = field === 'file' ? 'front' : field;
          if (target && ['front', 'back', 'number', 'expiry'].includes(target)) setErrors({ [target]: code });
          else setServerError(code);
        },
      },
    );
  };

  return (
    <Card variant="outlined" data-testid={`document-${kind}`} data-status={current?.status ?? 'missing'}>
      <CardContent>
        <Stack spacing={1.5}>
          <Stack direction="row" spacing={1} alignItems="center" justifyContent="space-between">
            <Typography variant="subtitle1" fontWeight={700}>
              {t(`document_kind_${kind}`)}
            </Typography>
            {current && <Chip size="small" color={STATUS_COLOR[current.status]} label={t(`signup.document_status.${current.status}`)} />}
          </Stack>
          <Typography variant="body2" color="text.secondary">
            {t(`signup.document_hint.${kind}`)}
          </Typography>
          {current && (
            <Stack direction="row" spacing={1.5} alignItems="center">
              <Box component="img" src={current.front} alt={t(`document_kind_${kind}`)} sx={{ width: 72, height: 72, objectFit: 'cover', borderRadius: 1, border: 1, borderColor: 'divider' }} />
              <Stack spacing={0.25} sx={{ minWidth: 0 }}>
                {current.number && <Typography variant="body2">{t('signup.licence_number')}: <bdi>{current.number}</bdi></Typography>}
                {current.expiresAt != null && (
                  <Typography variant="body2" color={attention === 'expired' ? 'error' : attention === 'expiring' ? 'warning.main' : 'text.primary'}>
                    {t('signup.expires_on', { date: dayOf(current.expiresAt) })}
                  </Typography>
                )}
              </Stack>
            </Stack>
          )}
          {current?.status === 'rejected' && current.reason && (
            <Alert severity="error" data-testid={`document-${kind}-reason`}>
              {t('signup.rejected_because', { reason: current.reason })}
            </Alert>
          )}
          {attention === 'expired' && <Alert severity="error">{t('document_expired')}</Alert>}
          {editing ? (
            <Stack spacing={1.5}>
              <Stack direction={{ xs: 'column', sm: 'row' }} spacing={1}>
                <Picker label={t(hasBack(kind) ? 'signup.pick_front' : 'signup.pick_photo')} file={draft.front} error={errors.front} onPick={(front) => change({ front })} testId={`document-${kind}-front`} />
                {hasBack(kind) && <Picker label={t('signup.pick_back')} file={draft.back} error={errors.back} onPick={(back) => change({ back })} testId={`document-${kind}-back`} />}
              </Stack>
              {hasNumber(kind) && (
                <TextField
                  label={t('signup.licence_number')}
                  value={draft.number}
                  onChange={(event) => change({ number: event.target.value })}
                  error={Boolean(errors.number)}
                  helperText={errors.number ? t(errors.number) : undefined}
                  slotProps={{ htmlInput: { dir: 'ltr', 'data-testid': `document-${kind}-number` } }}
                />
              )}
              {expires(kind) && (
                <TextField
                  type="date"
                  label={t('signup.expiry')}
                  value={draft.expiry}
                  onChange={(event) => change({ expiry: event.target.value })}
                  error={Boolean(errors.expiry)}
                  helperText={errors.expiry ? t(errors.expiry) : undefined}
                  slotProps={{ inputLabel: { shrink: true }, htmlInput: { min: dayOf(Date.now()), 'data-testid': `document-${kind}-expiry` } }}
                />
              )}
              {progress !== null && <LinearProgress variant="determinate" value={Math.round(progress * 100)} aria-label={t('signup.uploading')} />}
              {serverError && (
                <Alert severity="error" onClose={() => setServerError(null)}>
                  {t(serverError)}
                </Alert>
              )}
              <Stack direction="row" spacing={1}>
                {current && (
                  <Button onClick={() => setEditing(false)} disabled={upload.isPending}>
                    {t('common.cancel')}
                  </Button>
                )}
                <Button variant="contained" onClick={send} disabled={upload.isPending} sx={{ minHeight: 44 }} data-testid={`document-${kind}-send`}>
                  {upload.isPending ? t('signup.uploading') : t('signup.upload')}
                </Button>
              </Stack>
            </Stack>
          ) : (
            <Box>
              <Button variant="outlined" onClick={() => setEditing(true)} data-testid={`document-${kind}-replace`}>
                {t('signup.replace')}
              </Button>
            </Box>
          )}
        </Stack>
      </CardContent>
    </Card>
  );
}
