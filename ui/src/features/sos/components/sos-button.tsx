// Issue #33: the trip's SOS button, for its rider and its driver. Pressing
// it asks once (the shared confirm dialog), takes the phone's position (or
// the last known one: it never waits long on a GPS), sends the alert and
// then offers to call the panic number.
import CallIcon from '@mui/icons-material/Call';
import SosIcon from '@mui/icons-material/Sos';
import { Alert, Box, Button, Stack, Typography } from '@mui/material';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { confirm } from '@/components/ui/confirm-dialog';
import { useUser } from '@/lib/auth';
import { errorText } from '@/lib/server-errors';
import type { Booking, BookingStatus, LatLng } from '@/types/api';
import type { SosRaised } from '@/types/api';
import { useRaiseSos } from '../api/sos';
import { sosPosition } from '../lib/position';

/** A driver is on the trip and it is not over: the server's rule too. */
const TRIP_IN_PROGRESS: BookingStatus[] = ['ACCEPTED', 'ARRIVED', 'STARTED', 'REACHED', 'PENDING'];

export function canRaiseSos(booking: Booking, userId: string | undefined): boolean {
  if (!userId || !booking.driver || !TRIP_IN_PROGRESS.includes(booking.status)) return false;
  return booking.customer === userId || booking.driver === userId;
}

export function SosButton({ booking, lastPosition }: { booking: Booking; lastPosition?: LatLng | null }) {
  const { t, i18n } = useTranslation();
  const { data: user } = useUser();
  const raise = useRaiseSos(booking.id);
  const [locating, setLocating] = useState(false);
  const [sent, setSent] = useState<(SosRaised & { approximate: boolean }) | null>(null);
  if (!canRaiseSos(booking, user?.id) && !sent) return null;

  const press = async () => {
    const confirmed = await confirm({
      title: 'sos.confirm_title',
      message: t('sos.confirm_message'),
      confirmLabel: 'sos.confirm',
      destructive: true,
    });
    if (!confirmed) return;
    setLocating(true);
    const fallback = lastPosition ?? { lat: booking.pickup.lat, lng: booking.pickup.lng };
    const position = await sosPosition(fallback);
    setLocating(false);
    raise.mutate(position, { onSuccess: (answer) => setSent({ ...answer, approximate: position.approximate }) });
  };

  if (sent) {
    return (
      <Alert
        severity="error"
        variant="filled"
        icon={<SosIcon />}
        data-testid="sos-sent"
        sx={{ width: '100%', alignItems: 'center', '& .MuiAlert-message': { width: '100%' } }}
      >
        <Stack spacing={1.5}>
          <Typography fontWeight={800}>{t('sos.sent')}</Typography>
          {sent.approximate && <Typography variant="body2">{t('sos.sent_approximate')}</Typography>}
          {sent.panic && (
            <Button
              href={`tel:${sent.panic.replace(/[^\d+]/g, '')}`}
              variant="contained"
              size="large"
              fullWidth
              startIcon={<CallIcon />}
              data-testid="sos-call"
              sx={{
                bgcolor: 'common.white',
                color: 'error.main',
                fontWeight: 800,
                fontSize: { xs: '1.1rem', sm: '1.25rem' },
                py: 1.5,
                gap: 0.5,
                flexWrap: 'wrap',
                '&:hover': { bgcolor: 'grey.100' },
              }}
            >
              {t('sos.call')}{' '}
              {/* A phone number reads left to right in every language, on one line. */}
              {/* An inline style: the right-to-left stylesheet flips `direction` in `sx`. */}
              <span dir="ltr" style={{ direction: 'ltr', unicodeBidi: 'isolate', whiteSpace: 'nowrap' }}>
                {sent.panic}
              </span>
            </Button>
          )}
        </Stack>
      </Alert>
    );
  }

  const busy = locating || raise.isPending;
  return (
    <Box>
      <Button
        variant="contained"
        color="error"
        size="large"
        startIcon={<SosIcon />}
        onClick={() => void press()}
        disabled={busy}
        aria-label={t('sos.button_label')}
        data-testid="sos-button"
        sx={{ fontWeight: 900, letterSpacing: 1, minWidth: 120, minHeight: 48 }}
      >
        {locating ? t('sos.locating') : raise.isPending ? t('sos.sending') : t('sos.button')}
      </Button>
      {raise.isError && (
        <Alert severity="error" sx={{ mt: 1 }} data-testid="sos-error">
          {errorText(raise.error, t, (key) => i18n.exists(key))}
        </Alert>
      )}
    </Box>
  );
}
