import {
  Alert,
  Button,
  CircularProgress,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  List,
  ListItemButton,
  ListItemText,
  Typography,
  useMediaQuery,
  useTheme,
} from '@mui/material';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { notify } from '@/components/ui/notifications/notifications-store';
import { ServerErrorAlert } from '@/components/ui/server-error-alert';
import { useSettings } from '@/lib/app-data';
import type { Booking } from '@/types/api';
import { useAssignCandidates, useAssignDriver } from '../api/panel-bookings';

/** Spec §4 "Assign driver": a picker of the eligible drivers, nearest the
 * pickup first; the chosen one is offered the booking and told at once. */
export function AssignDriverDialog({ booking, onClose }: { booking: Booking; onClose: () => void }) {
  const { t } = useTranslation();
  const settings = useSettings();
  const theme = useTheme();
  const phone = useMediaQuery(theme.breakpoints.down('sm'));
  const candidates = useAssignCandidates(booking.id);
  const assign = useAssignDriver();
  const [chosen, setChosen] = useState<string | null>(null);
  const list = candidates.data?.items ?? [];
  const submit = () => {
    if (!chosen) return;
    assign.mutate(
      { booking: booking.id, driver: chosen },
      {
        onSuccess: () => {
          // Spec §4: 'Driver assigned successfully and notified'.
          notify({ severity: 'success', message: 'panel.bookings.assigned' });
          onClose();
        },
      },
    );
  };
  return (
    <Dialog open onClose={assign.isPending ? undefined : onClose} fullWidth maxWidth="sm" fullScreen={phone} data-testid="assign-dialog">
      <DialogTitle>{t('panel.bookings.assign_title', { reference: booking.reference })}</DialogTitle>
      <DialogContent dividers>
        <Typography variant="body2" color="text.secondary" sx={{ mb: 1 }}>
          {t('panel.bookings.assign_help', { pickup: booking.pickupAddress, carType: booking.carType })}
        </Typography>
        {candidates.isPending && <CircularProgress size={24} />}
        {candidates.isError && <ServerErrorAlert error={candidates.error} onRetry={() => void candidates.refetch()} />}
        {candidates.isSuccess && list.length === 0 && (
          <Alert severity="info" data-testid="assign-none">
            {t('panel.bookings.no_candidates')}
          </Alert>
        )}
        <List dense>
          {list.map((candidate) => {
            // The server already gives the platform's unit.
            const distance = { value: Math.round(candidate.distance_km * 10) / 10, unit: settings.convert_to_mile ? 'units.mi' : 'units.km' };
            return (
              <ListItemButton
                key={candidate.id}
                selected={chosen === candidate.id}
                onClick={() => setChosen(candidate.id)}
                data-testid="assign-candidate"
                data-driver-id={candidate.id}
              >
                <ListItemText
                  primary={candidate.name}
                  secondary={[candidate.carType, candidate.vehicleNumber].filter(Boolean).join(' · ')}
                />
                <Typography variant="body2" sx={{ whiteSpace: 'nowrap', marginInlineStart: 2 }}>
                  {t(distance.unit, { value: distance.value })}
                </Typography>
              </ListItemButton>
            );
          })}
        </List>
        {assign.isError && <ServerErrorAlert error={assign.error} />}
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose} disabled={assign.isPending}>
          {t('common.cancel')}
        </Button>
        <Button variant="contained" onClick={submit} disabled={!chosen || assign.isPending} data-testid="assign-confirm">
          {t('panel.bookings.assign')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
