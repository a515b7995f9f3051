import BadgeIcon from '@mui/icons-material/Badge';
import UploadFileIcon from '@mui/icons-material/UploadFile';
import { Alert, Box, Button, CircularProgress, Stack, Typography } from '@mui/material';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { errorKey } from '@/lib/api-client';
import type { User } from '@/types/api';
import { useUploadUserImage } from '../api/profile';

type Message = { severity: 'success' | 'error'; key: string };

/** The driver's licence (spec §6: a driver uploads the licence image; §7
 * updateLicenseImage): the picture on file and a button to send a new one.
 * Shown on the driver's console and in the profile. */
export function LicenceUpload({ user }: { user: User }) {
  const { t } = useTranslation();
  const upload = useUploadUserImage('license-image');
  const [message, setMessage] = useState<Message | null>(null);

  const send = (file: File | undefined) => {
    setMessage(null);
    if (!file) {
      setMessage({ severity: 'error', key: 'choose_image_first' });
      return;
    }
    upload.mutate(file, {
      onSuccess: () => setMessage({ severity: 'success', key: 'profile.licence_saved' }),
      onError: (error) => {
        const key = errorKey(error);
        setMessage({ severity: 'error', key: key === 'not_found' ? 'uploads_unavailable' : key });
      },
    });
  };

  return (
    <Stack spacing={1.5} data-testid="licence-upload" data-has-licence={user.licenseImage ? 'true' : 'false'}>
      <Stack direction="row" spacing={1} alignItems="center">
        <BadgeIcon color="primary" />
        <Typography variant="subtitle1" fontWeight={700}>
          {t('profile.licence')}
        </Typography>
      </Stack>
      {user.licenseImage ? (
        <Box
          component="img"
          src={user.licenseImage}
          alt={t('profile.licence')}
          data-testid="licence-image"
          sx={{ maxWidth: '100%', maxHeight: 160, objectFit: 'contain', alignSelf: 'flex-start', borderRadius: 1, border: 1, borderColor: 'divider' }}
        />
      ) : (
        <Typography variant="body2" color="text.secondary" data-testid="licence-missing">
          {t('profile.licence_missing')}
        </Typography>
      )}
      <Box>
        <Button
          component="label"
          variant="outlined"
          disabled={upload.isPending}
          startIcon={upload.isPending ? <CircularProgress size={16} /> : <UploadFileIcon />}
        >
          {user.licenseImage ? t('profile.replace_licence') : t('profile.upload_licence')}
          <input
            hidden
            type="file"
            accept="image/*"
            onChange={(event) => {
              send(event.target.files?.[0]);
              // The same file may be chosen again after a failure.
              event.target.value = '';
            }}
            data-testid="licence-input"
          />
        </Button>
      </Box>
      {message && (
        <Alert severity={message.severity} onClose={() => setMessage(null)} data-testid="licence-message">
          {t(message.key)}
        </Alert>
      )}
    </Stack>
  );
}
