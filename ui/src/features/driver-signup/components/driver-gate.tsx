// What stands between a driver and the console (issue #33): a driver whose
// account is not approved sees their application instead; an approved one
// with a document that expired, expires within 30 days, was rejected or was
// never sent sees a warning with a way to send a new one above the console.
import { Alert, AlertTitle, Button, Collapse, Stack } from '@mui/material';
import { useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { Application, User } from '@/types/api';
import { useMyApplication } from '../api/applications';
import { attentionOf, dayOf, documentsNeedingRenewal, kindsNeverSent } from '../lib/documents';
import { ApplicationView } from './application-view';
import { DocumentCard } from './document-card';

export function RenewalWarning({ application }: { application: Application }) {
  const { t } = useTranslation();
  const [open, setOpen] = useState(false);
  const now = Date.now();
  const renewing = documentsNeedingRenewal(application, now);
  const unsent = kindsNeverSent(application);
  if (renewing.length === 0 && unsent.length === 0) return null;
  const expired = unsent.length > 0 || renewing.some((document) => attentionOf(document, now) !== 'expiring');
  return (
    <Stack spacing={1.5} data-testid="renewal-warning" data-expired={String(expired)}>
      <Alert
        severity={expired ? 'error' : 'warning'}
        action={
          <Button color="inherit" size="small" onClick={() => setOpen((value) => !value)} data-testid="renewal-open">
            {t('signup.reupload')}
          </Button>
        }
      >
        <AlertTitle>{t(expired ? 'signup.renew_blocked' : 'signup.renew_soon')}</AlertTitle>
        {[
          ...renewing.map((document) =>
            document.expiresAt != null
              ? t('signup.renew_item', { document: t(`document_kind_${document.kind}`), date: dayOf(document.expiresAt) })
              : t(`document_kind_${document.kind}`),
          ),
          ...unsent.map((kind) => t(`document_kind_${kind}`)),
        ].join(' · ')}
      </Alert>
      <Collapse in={open} unmountOnExit>
        <Stack spacing={1.5}>
          {renewing.map((document) => (
            <DocumentCard key={document.kind} kind={document.kind} current={document} />
          ))}
          {unsent.map((kind) => (
            <DocumentCard key={kind} kind={kind} />
          ))}
        </Stack>
      </Collapse>
    </Stack>
  );
}

export function DriverGate({ user, children }: { user: User; children: ReactNode }) {
  // The account's approval decides; documents then only warn (going online
  // is refused by the server with the reason).
  const application = useMyApplication(user.usertype === 'driver');
  if (!user.approved) return <ApplicationView user={user} />;
  return (
    <Stack spacing={3}>
      {application.data && <RenewalWarning application={application.data} />}
      {children}
    </Stack>
  );
}
