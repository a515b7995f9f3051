// A driver's application as they follow it (issue #33): where it stands, why
// it was rejected, and each required document with a way to send it again.
// Shown after the sign-up and, instead of the console, to a driver whose
// account or documents are not approved.
import HourglassTopIcon from '@mui/icons-material/HourglassTop';
import { Alert, AlertTitle, Box, CircularProgress, Stack, Typography } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { ServerErrorAlert } from '@/components/ui/server-error-alert';
import type { Application, User } from '@/types/api';
import { useMyApplication } from '../api/applications';
import { DocumentCard } from './document-card';

function StatusBanner({ user, application }: { user: User; application: Application }) {
  const { t } = useTranslation();
  const missing = application.missing.map((kind) => t(`document_kind_${kind}`)).join(', ');
  switch (application.status) {
    case 'rejected':
      return (
        <Alert severity="error" data-testid="application-status" data-status="rejected">
          <AlertTitle>{t('signup.status.rejected')}</AlertTitle>
          <span data-testid="application-reason">{t('signup.rejected_because', { reason: application.reason ?? '' })}</span>
        </Alert>
      );
    case 'incomplete':
      return (
        <Alert severity="warning" data-testid="application-status" data-status="incomplete">
          <AlertTitle>{t('signup.status.incomplete')}</AlertTitle>
          {t('signup.missing', { documents: missing })}
        </Alert>
      );
    case 'pending':
      return (
        <Alert severity="info" icon={<HourglassTopIcon />} data-testid="application-status" data-status="pending">
          <AlertTitle>{t('signup.status.pending')}</AlertTitle>
          {t('signup.pending_body')}
        </Alert>
      );
    default:
      return (
        <Alert severity={user.approved ? 'success' : 'info'} data-testid="application-status" data-status={user.approved ? 'approved' : 'pending'}>
          <AlertTitle>{t(user.approved ? 'signup.status.approved' : 'signup.status.pending')}</AlertTitle>
          {user.approved ? t('signup.approved_body') : t('signup.pending_body')}
        </Alert>
      );
  }
}

export function ApplicationView({ user }: { user: User }) {
  const { t } = useTranslation();
  const application = useMyApplication();
  if (application.isPending) {
    return (
      <Box sx={{ display: 'flex', justifyContent: 'center', py: 6 }}>
        <CircularProgress aria-label={t('common.loading')} />
      </Box>
    );
  }
  if (application.isError || !application.data) return <ServerErrorAlert error={application.error} />;
  const data = application.data;
  const extra = data.documents.filter((document) => !data.required.includes(document.kind));
  return (
    <Stack spacing={2} sx={{ maxWidth: 720, mx: 'auto' }} data-testid="driver-application">
      <Typography variant="h5" component="h2">
        {t('signup.application_title')}
      </Typography>
      <StatusBanner user={user} application={data} />
      <Typography variant="body2" color="text.secondary">
        {t('signup.cannot_go_online')}
      </Typography>
      {data.required.map((kind) => (
        <DocumentCard key={kind} kind={kind} current={data.documents.find((document) => document.kind === kind)} />
      ))}
      {extra.map((document) => (
        <DocumentCard key={document.kind} kind={document.kind} current={document} />
      ))}
    </Stack>
  );
}
