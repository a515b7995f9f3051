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
import { useAtomValue, useSetAtom } from 'jotai';
import { useEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { dismissBookingNotifications } from '@/components/ui/notifications/notifications-store';
import { errorKey } from '@/lib/api-client';
import { useSettings } from '@/lib/app-data';
import { useAppTexts } from '@/lib/app-texts';
import { socketStatusAtom } from '@/lib/socket';
import type { Booking, User } from '@/types/api';
import { useAcceptOffer, useDeclineOffer, useDriverStatus, useTasks } from '../api/driver';
import { usePositionSharing, useEffectiveMode } from '../hooks/use-position-sharing';
import { useWakeLock } from '../hooks/use-wake-lock';
import { playOfferSound, unlockOfferSound } from '../lib/offer-sound';
import { fixStatusAtom, sharingModeAtom, simulationAtom, unsentPositionsAtom, type FixStatus } from '../stores/driver-position';
import { OfferCard } from './offer-card';
import { SuggestedAreaHint } from './suggested-area';

/** Why the driver cannot go online now, as a translation key; null when they can. */
export function blockedReason(fix: FixStatus): string | null {
  switch (fix.state) {
    case 'ok':
      return null;
    case 'waiting':
      return 'driver.fix_waiting';
    case 'weak':
      return 'driver.fix_weak';
    case 'stale':
      return 'driver.fix_stale';
    case 'denied':
      return 'driver.fix_denied';
    case 'unsupported':
      return 'driver.fix_unsupported';
  }
}

/** The driver's console: online / offline, where the device says the car
 * is, and the booking requests offered right now. With a trip under way it
 * is the small card under the trip. */
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
  // The requests of a delivery platform are delivery requests (issue #34).
  const { t } = useAppTexts();
  const settings = useSettings();
  const demoCity = settings.demoCity === true;
  const online = user.driverActiveStatus === true;
  const status = useDriverStatus();
  const tasks = useTasks(online);
  const accept = useAcceptOffer();
  const decline = useDeclineOffer();
  const mode = useEffectiveMode(demoCity);
  const setMode = useSetAtom(sharingModeAtom);
  const fix = useAtomValue(fixStatusAtom);
  const unsent = useAtomValue(unsentPositionsAtom);
  const socketStatus = useAtomValue(socketStatusAtom);
  const simulation = useAtomValue(simulationAtom);
  const [lost, setLost] = useState<string | null>(null);
  const home = useMemo(() => user.location ?? null, [user.location?.lat, user.location?.lng]); // eslint-disable-line react-hooks/exhaustive-deps
  const position = usePositionSharing({ online, trip, home, demoCity });
  useWakeLock(online);
  const blocked = mode === 'device' ? blockedReason(fix) : null;

  // A chime for each offer that was not there before.
  const offers = tasks.data ?? [];
  const seen = useRef(new Set<string>());
  useEffect(() => {
    let fresh = false;
    for (const offer of tasks.data ?? []) {
      if (!seen.current.has(offer.booking.id)) {
        seen.current.add(offer.booking.id);
        fresh = true;
      }
    }
    if (fresh) playOfferSound();
  }, [tasks.data]);

  const toggle = (next: boolean) => {
    unlockOfferSound();
    if (next && blocked) return;
    const at = position ? { lat: position.lat, lng: position.lng, accuracy: position.accuracy, heading: position.heading, at: position.at } : null;
    status.mutate({ online: next, location: next ? at : null }, { onError: (error) => setLost(errorKey(error)) });
  };

  const take = (booking: Booking) => {
    setLost(null);
    dismissBookingNotifications(booking.id);
    accept.mutate(booking.id, {
      onSuccess: (accepted) => onAccepted(accepted),
      onError: (error) => setLost(errorKey(error)),
    });
  };

  const refuse = (booking: Booking) => {
    dismissBookingNotifications(booking.id);
    decline.mutate(booking.id);
  };

  return (
    <Card variant="outlined" data-testid="driver-console" data-online={online ? 'true' : 'false'} data-fix={fix.state}>
      <CardContent>
        <Stack direction={{ xs: 'column', sm: 'row' }} spacing={1.5} alignItems={{ sm: 'center' }}>
          <FormControlLabel
            control={
              <Switch
                checked={online}
                disabled={status.isPending || (!online && blocked !== null)}
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
          {demoCity && (
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
                {t('driver.simulate_demo')}
              </ToggleButton>
            </ToggleButtonGroup>
          )}
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

        <PositionLine mode={mode} fix={fix} online={online} position={position} simulationLabel={trip ? t(`driver.sim_${simulation.leg}${simulation.arrived ? '_done' : ''}`) : null} simulation={simulation} />
        {unsent > 0 && (
          <Typography variant="body2" color="warning.main" sx={{ mt: 0.5 }} data-testid="unsent-positions" data-count={unsent}>
            {t('driver.unsent_positions', { count: unsent })}
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
                    onDecline={() => refuse(offer.booking)}
                  />
                ))}
              </Stack>
            )}
            {offers.length === 0 && <SuggestedAreaHint position={position} />}
          </Box>
        )}
        {!online && !blocked && (
          <Typography color="text.secondary" sx={{ mt: 2 }}>
            {t('driver.offline_hint')}
          </Typography>
        )}
      </CardContent>
    </Card>
  );
}

/** Where the position comes from and whether it is good: the driver always sees why they cannot go online. */
function PositionLine({
  mode,
  fix,
  online,
  position,
  simulation,
  simulationLabel,
}: {
  mode: 'device' | 'simulate';
  fix: FixStatus;
  online: boolean;
  position: { lat: number; lng: number } | null;
  simulation: { leg: string; arrived: boolean };
  simulationLabel: string | null;
}) {
  const { t } = useTranslation();
  if (mode === 'simulate') {
    return (
      <Stack direction="row" spacing={1.5} alignItems="baseline" sx={{ mt: 1 }} flexWrap="wrap" useFlexGap>
        <Chip size="small" color="warning" label={t('driver.simulating')} data-testid="simulating" />
        {simulationLabel && (
          <Typography variant="body2" fontWeight={600} data-testid="simulation-state" data-leg={simulation.leg} data-arrived={simulation.arrived ? 'true' : 'false'}>
            {simulationLabel}
          </Typography>
        )}
        {online && position && (
          <Typography variant="caption" color="text.secondary" dir="ltr" data-testid="driver-position">
            {position.lat.toFixed(5)}, {position.lng.toFixed(5)}
          </Typography>
        )}
      </Stack>
    );
  }
  const reason = blockedReason(fix);
  if (reason) {
    const severity = fix.state === 'denied' || fix.state === 'unsupported' ? 'error' : fix.state === 'waiting' ? 'info' : 'warning';
    const seconds = fix.lastAt ? Math.round((Date.now() - fix.lastAt) / 1000) : 0;
    return (
      <Alert severity={severity} sx={{ mt: 1.5 }} data-testid="position-problem" data-state={fix.state}>
        {t(reason, { accuracy: Math.round(fix.accuracy ?? 0), seconds })}
        {online && fix.state !== 'waiting' && <Box component="span" sx={{ display: 'block', mt: 0.5, fontWeight: 600 }}>{t('driver.fix_not_used')}</Box>}
      </Alert>
    );
  }
  return (
    <Stack direction="row" spacing={1.5} alignItems="baseline" sx={{ mt: 1 }}>
      <Typography variant="body2" color="success.main" fontWeight={600} data-testid="position-ok">
        {fix.accuracy !== undefined ? t('driver.fix_ok', { accuracy: Math.round(fix.accuracy) }) : t('driver.fix_ok_plain')}
      </Typography>
      {position && (
        <Typography variant="caption" color="text.secondary" dir="ltr" data-testid="driver-position">
          {position.lat.toFixed(5)}, {position.lng.toFixed(5)}
        </Typography>
      )}
    </Stack>
  );
}
