// The panel's "Waiting for approval" (issue #33): drivers whose documents
// wait for review, in the shared table; a row opens the documents side by
// side with the vehicle, to approve, or reject with a reason the driver is
// told. Fleet admins get their fleet's drivers only (the server scopes it).
import CheckIcon from '@mui/icons-material/Check';
import CloseIcon from '@mui/icons-material/Close';
import VisibilityIcon from '@mui/icons-material/Visibility';
import {
  Alert,
  Box,
  Button,
  Chip,
  CircularProgress,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  Grid,
  Paper,
  Stack,
  TextField,
  Typography,
  useMediaQuery,
  useTheme,
} from '@mui/material';
import type { GridColDef } from '@mui/x-data-grid';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { PanelTable } from '@/components/panel/panel-table';
import { userName } from '@/components/panel/user-picker';
import { notify } from '@/components/ui/notifications/notifications-store';
import { ServerErrorAlert } from '@/components/ui/server-error-alert';
import { formatDateTime } from '@/lib/format';
import { errorText } from '@/lib/server-errors';
import type { DriverDocument, User } from '@/types/api';
import { applicationKeys, fetchQueuePage, useApproveDriver, useDriverApplication, useRejectDriver } from '../api/applications';
import { ALL_KINDS, attentionOf, dayOf } from '../lib/documents';

const STATUS_COLOR = { pending: 'info', approved: 'success', rejected: 'error' } as const;

function DocumentPanel({ document }: { document: DriverDocument }) {
  const { t } = useTranslation();
  const attention = attentionOf(document, Date.now());
  const images = [document.front, ...(document.back ? [document.back] : [])];
  return (
    <Paper variant="outlined" sx={{ p: 1.5, height: '100%' }} data-testid={`review-document-${document.kind}`}>
      <Stack spacing={1} sx={{ height: '100%' }}>
        <Stack direction="row" justifyContent="space-between" alignItems="center" spacing={1}>
          <Typography fontWeight={700}>{t(`document_kind_${document.kind}`)}</Typography>
          <Chip size="small" color={STATUS_COLOR[document.status]} label={t(`signup.document_status.${document.status}`)} />
        </Stack>
        <Stack direction="row" spacing={1}>
          {images.map((source, index) => (
            <Box
              key={source}
              component="a"
              href={source}
              target="_blank"
              rel="noreferrer"
              sx={{ flex: 1, minWidth: 0, display: 'block', bgcolor: 'grey.100', borderRadius: 1, border: 1, borderColor: 'divider' }}
            >
              <Box
                component="img"
                src={source}
                alt={`${t(`document_kind_${document.kind}`)} ${index === 0 ? t('signup.front') : t('signup.back')}`}
                sx={{ width: '100%', height: 220, objectFit: 'contain', display: 'block' }}
              />
            </Box>
          ))}
        </Stack>
        {document.number && (
          <Typography variant="body2">
            {t('signup.licence_number')}: <bdi>{document.number}</bdi>
          </Typography>
        )}
        {document.expiresAt != null && (
          <Typography variant="body2" color={attention === 'expired' ? 'error' : attention === 'expiring' ? 'warning.main' : 'text.primary'}>
            {t('signup.expires_on', { date: dayOf(document.expiresAt) })}
          </Typography>
        )}
        {document.reason && (
          <Typography variant="body2" color="error">
            {t('signup.rejected_because', { reason: document.reason })}
          </Typography>
        )}
      </Stack>
    </Paper>
  );
}

function Vehicle({ user }: { user: User }) {
  const { t } = useTranslation();
  const rows: [string, string | undefined | null][] = [
    ['signup.field.carType', user.carType],
    ['signup.field.vehicleMake', user.vehicleMake],
    ['signup.field.vehicleModel', user.vehicleModel],
    ['signup.field.vehicleNumber', user.vehicleNumber],
    ['signup.field.vehicleColor', user.vehicleColor],
    ['signup.field.vehicleYear', user.vehicleYear],
    ['login.contact', user.mobile || user.email],
  ];
  return (
    <Grid container spacing={1} data-testid="review-vehicle">
      {rows.map(([label, value]) => (
        <Grid key={label} size={{ xs: 6, sm: 4, md: 12 / 7 }}>
          <Typography variant="caption" color="text.secondary" display="block">
            {t(label)}
          </Typography>
          <Typography variant="body2" fontWeight={600} sx={{ overflowWrap: 'anywhere' }}>
            <bdi>{value || '—'}</bdi>
          </Typography>
        </Grid>
      ))}
    </Grid>
  );
}

export function ReviewDialog({ id, onClose }: { id: string; onClose: () => void }) {
  const { t, i18n } = useTranslation();
  const theme = useTheme();
  const phone = useMediaQuery(theme.breakpoints.down('sm'));
  const review = useDriverApplication(id);
  const approve = useApproveDriver();
  const reject = useRejectDriver();
  const [rejecting, setRejecting] = useState(false);
  const [reason, setReason] = useState('');
  const [reasonError, setReasonError] = useState<string | null>(null);
  const failed = (error: unknown) => notify({ severity: 'error', message: errorText(error, t, (key) => i18n.exists(key)), translated: true });
  const busy = approve.isPending || reject.isPending;
  const data = review.data;
  // In the order the sign-up asks for them.
  const documents = [...(data?.application.documents ?? [])].sort((a, b) => ALL_KINDS.indexOf(a.kind) - ALL_KINDS.indexOf(b.kind));

  const doReject = () => {
    if (reason.trim() === '') {
      setReasonError('reason_required');
      return;
    }
    reject.mutate(
      { id, reason: reason.trim() },
      {
        onSuccess: () => {
          notify({ severity: 'success', message: 'signup.rejected_done' });
          onClose();
        },
        onError: (error) => setReasonError(errorText(error, t, (key) => i18n.exists(key))),
      },
    );
  };

  return (
    <Dialog open onClose={onClose} fullWidth maxWidth="lg" fullScreen={phone} data-testid="review-dialog">
      <DialogTitle>{data ? t('signup.review_title', { name: userName(data.user) }) : t('common.loading')}</DialogTitle>
      <DialogContent dividers>
        {review.isPending && <CircularProgress aria-label={t('common.loading')} />}
        {review.isError && <ServerErrorAlert error={review.error} />}
        {data && (
          <Stack spacing={2}>
            <Vehicle user={data.user} />
            {documents.length === 0 && <Alert severity="info">{t('signup.no_documents')}</Alert>}
            <Grid container spacing={2}>
              {documents.map((document) => (
                <Grid key={document.kind} size={{ xs: 12, sm: 6, md: documents.length >= 4 ? 3 : 4 }}>
                  <DocumentPanel document={document} />
                </Grid>
              ))}
            </Grid>
            {rejecting && (
              <TextField
                autoFocus
                multiline
                minRows={2}
                label={t('signup.reject_reason')}
                value={reason}
                onChange={(event) => {
                  setReason(event.target.value);
                  setReasonError(null);
                }}
                error={Boolean(reasonError)}
                helperText={reasonError ? t(reasonError) : t('signup.reject_reason_help')}
                slotProps={{ htmlInput: { maxLength: 500, 'data-testid': 'review-reason' } }}
              />
            )}
          </Stack>
        )}
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose} disabled={busy}>
          {t('common.close')}
        </Button>
        {rejecting ? (
          <Button color="error" variant="contained" onClick={doReject} disabled={busy} data-testid="review-reject-confirm">
            {t('signup.reject')}
          </Button>
        ) : (
          <Button color="error" startIcon={<CloseIcon />} onClick={() => setRejecting(true)} disabled={busy || !data} data-testid="review-reject">
            {t('signup.reject')}
          </Button>
        )}
        <Button
          variant="contained"
          color="success"
          startIcon={<CheckIcon />}
          disabled={busy || !data}
          data-testid="review-approve"
          onClick={() =>
            approve.mutate(id, {
              onSuccess: () => {
                notify({ severity: 'success', message: 'users.approved_done' });
                onClose();
              },
              onError: failed,
            })
          }
        >
          {t('users.approve')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}

export function ApprovalQueue() {
  const { t } = useTranslation();
  const [reviewing, setReviewing] = useState<string | null>(null);
  const columns = useMemo<GridColDef<User>[]>(
    () => [
      { field: 'name', headerName: t('users.name'), flex: 1, minWidth: 170, sortable: false, valueGetter: (_value, row) => userName(row) },
      { field: 'contact', headerName: t('login.contact'), flex: 1, minWidth: 190, sortable: false, cellClassName: 'ltr-cell', valueGetter: (_value, row) => row.mobile || row.email },
      { field: 'carType', headerName: t('signup.field.carType'), flex: 0.7, minWidth: 110, sortable: false },
      { field: 'vehicle', headerName: t('signup.vehicle'), flex: 1, minWidth: 170, sortable: false, valueGetter: (_value, row) => [row.vehicleMake, row.vehicleModel, row.vehicleNumber].filter(Boolean).join(' · ') },
      {
        field: 'approved',
        headerName: t('signup.waiting_for'),
        minWidth: 150,
        sortable: false,
        renderCell: ({ row }) => <Chip size="small" color={row.approved ? 'info' : 'warning'} label={t(row.approved ? 'signup.waiting_replacement' : 'signup.waiting_new')} />,
      },
      { field: 'createdAt', headerName: t('signup.signed_up'), minWidth: 150, sortable: false, valueFormatter: (value: number) => formatDateTime(value) },
    ],
    [t],
  );
  return (
    <>
      <PanelTable<User>
        testId="approval-queue"
        columns={columns}
        search={false}
        emptyText="signup.queue_empty"
        source={{ mode: 'server', queryKey: applicationKeys.queue, fetchPage: fetchQueuePage }}
        onRowClick={(row) => setReviewing(row.id)}
        actions={(row) => [{ key: 'review', label: 'signup.review', icon: <VisibilityIcon />, onClick: () => setReviewing(row.id) }]}
      />
      {reviewing && <ReviewDialog id={reviewing} onClose={() => setReviewing(null)} />}
    </>
  );
}
