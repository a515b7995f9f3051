import GpsFixedIcon from '@mui/icons-material/GpsFixed';
import RouteIcon from '@mui/icons-material/Route';
import {
  Alert,
  Box,
  Card,
  CardContent,
  Chip,
  FormControlLabel,
  Stack,
  Switch,
  ToggleButton,
  ToggleButtonGroup,
  Typography,
} from '@mui/material';
import { useAtom, useAtomValue } from 'jotai';
import { useEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { errorKey } from '@/lib/api-client';
import { socketStatusAtom } from '@/lib/socket';
import type { Booking, User } from '@/types/api';
import { useAcceptOffer, useDeclineOffer, useDriverStatus, useTasks } from '../api/driver';
import { usePositionSharing } from '../hooks/use-position-sharing';
import { playOfferSound, unlockOfferSound } from '../lib/offer-sound';
import { locationErrorAtom, sharingModeAtom, simulationAtom } from '../stores/driver-position';
import { OfferCard } from './offer-card';

/** The driver's console: online / offline, where the car is, and the
 * booking requests offered right now. */
export function DriverConsole({
  user,
  trip,
  onAccepted,
}: {
  user: User;
  /** The trip the driver runs now, if any. */
  trip: Booking | null;
  onAccepted: (booking: Booking) => void;
}) {
  const { t } = useTranslation();
  const online = user.driverActiveStatus;
  const status = useDriverStatus();
  const tasks = useTasks(online);
  const accept = useAcceptOffer();
  const decline = useDeclineOffer();
  const [mode, setMode] = useAtom(sharingModeAtom);
  const locationError = useAtomValue(locationErrorAtom);
  const socketStatus = useAtomValue(socketStatusAtom);
  const simulation = useAtomValue(simulationAtom);
  const [lost, setLost] = useState<string | null>(null);
  const home = useMemo(() => user.location, [user.location?.lat, user.location?.lng]); // eslint-disable-line react-hooks/exhaustive-deps
  const position = usePositionSharing({ online, trip, home });

  // A chime for each offer that was not there before.
  const offers = tasks.data ?? [];
  const seen = useRef(new Set<string>());
  useEffect(() => {
    let fresh = false;
    for (const offer of offers) {
      if (!seen.current.has(offer.booking.id)) {
        seen.current.add(offer.booking.id);
        fresh = true;
      }
    }
    if (fresh) playOfferSound();
  }, [offers]);

  const toggle = (next: boolean) => {
    unlockOfferSound();
    status.mutate(next);
  };

  const take = (booking: Booking) => {
    setLost(null);
    accept.mutate(booking.id, {
      onSuccess: (accepted) => onAccepted(accepted),
      onError: (error) => setLost(errorKey(error)),
    });
  };

  return (
    <Card variant="outlined" data-testid="driver-console" data-online={online ? 'true' : 'false'}>
      <CardContent>
        <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2} alignItems={{ sm: 'center' }}>
          <FormControlLabel
            control={
              <Switch
                checked={online}
                disabled={status.isPending}
                onChange={(event) => toggle(event.target.checked)}
                color="success"
                slotProps={{ input: { 'data-testid': 'driver-online-toggle' } as React.InputHTMLAttributes<HTMLInputElement> }}
              />
            }
            label={
              <Typography fontWeight={700} data-testid="driver-online-label">
                {online ? t('driver.online') : t('driver.offline')}
              </Typography>
            }
          />
          <Box sx={{ flexGrow: 1 }} />
          <ToggleButtonGroup
            size="small"
            exclusive
            value={mode}
            onChange={(_, value) => value && setMode(value)}
            aria-label={t('driver.position_source')}
            sx={{ alignSelf: { xs: 'flex-start', sm: 'center' } }}
          >
            <ToggleButton value="device" data-testid="share-device">
              <GpsFixedIcon fontSize="small" sx={{ marginInlineEnd: 0.5 }} />
              {t('driver.use_device')}
            </ToggleButton>
            <ToggleButton value="simulate" data-testid="share-simulate">
              <RouteIcon fontSize="small" sx={{ marginInlineEnd: 0.5 }} />
              {t('driver.simulate')}
            </ToggleButton>
          </ToggleButtonGroup>
          <Chip
            size="small"
            variant="outlined"
            color={socketStatus === 'connected' ? 'success' : 'default'}
            label={socketStatus === 'connected' ? t('realtime.live') : t('realtime.connecting')}
            sx={{ alignSelf: { xs: 'flex-start', sm: 'center' } }}
            data-testid="socket-status"
            data-state={socketStatus}
          />
        </Stack>
        {online && position && (
          <Stack direction="row" spacing={1.5} alignItems="baseline" sx={{ mt: 1 }}>
            {mode === 'simulate' && trip && (
              <Typography variant="body2" fontWeight={600} data-testid="simulation-state" data-leg={simulation.leg} data-arrived={simulation.arrived ? 'true' : 'false'}>
                {t(`driver.sim_${simulation.leg}${simulation.arrived ? '_done' : ''}`)}
              </Typography>
            )}
            <Typography variant="caption" color="text.secondary" dir="ltr" data-testid="driver-position">
              {position.lat.toFixed(5)}, {position.lng.toFixed(5)}
            </Typography>
          </Stack>
        )}
        {locationError && mode === 'device' && (
          <Typography color="error" sx={{ mt: 1 }} data-testid="allow-location">
            {t('allow_location')}
          </Typography>
        )}
        {lost && (
          <Alert severity="warning" sx={{ mt: 2 }} onClose={() => setLost(null)} data-testid="offer-lost">
            {t(lost)}
          </Alert>
        )}
        {online && !trip && (
          <Box sx={{ mt: 2 }}>
            <Typography variant="subtitle1" fontWeight={700} sx={{ mb: 1 }}>
              {t('driver.requests')}
            </Typography>
            {offers.length === 0 ? (
              <Typography color="text.secondary" data-testid="no-offers">
                {tasks.isPending ? t('common.loading') : t('no_tasks')}
              </Typography>
            ) : (
              <Stack spacing={2}>
                {offers.map((offer) => (
                  <OfferCard
                    key={offer.booking.id}
                    offer={offer}
                    position={position}
                    busy={accept.isPending || decline.isPending}
                    onAccept={() => take(offer.booking)}
                    onDecline={() => decline.mutate(offer.booking.id)}
                  />
                ))}
              </Stack>
            )}
          </Box>
        )}
        {!online && (
          <Typography color="text.secondary" sx={{ mt: 2 }}>
            {t('driver.offline_hint')}
          </Typography>
        )}
      </CardContent>
    </Card>
  );
}
