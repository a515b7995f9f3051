import { Alert, Button } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { isApiError } from '@/lib/api-client';
import { errorText } from '@/lib/server-errors';

/** A refusal or failure shown in place: the translated message, with a retry when one makes sense. */
export function ServerErrorAlert({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  const { t, i18n } = useTranslation();
  if (!error) return null;
  return (
    <Alert
      severity="error"
      data-testid="server-error"
      data-code={isApiError(error) ? error.code : 'internal_error'}
      action={
        onRetry ? (
          <Button color="inherit" size="small" onClick={onRetry}>
            {t('common.retry')}
          </Button>
        ) : undefined
      }
    >
      {errorText(error, t, (key) => i18n.exists(key))}
    </Alert>
  );
}
