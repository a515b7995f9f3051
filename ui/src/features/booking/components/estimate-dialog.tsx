import PlaceIcon from '@mui/icons-material/Place';
import TripOriginIcon from '@mui/icons-material/TripOrigin';
import {
  Alert,
  Box,
  Button,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  Divider,
  Stack,
  TextField,
  Typography,
} from '@mui/material';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { MapView } from '@/components/map/map-view';
import { distanceIn, durationKey, formatMoney } from '@/lib/format';
import type { Estimate, LatLng, Place, Settings } from '@/types/api';
import type { DeliveryInput } from '../api/bookings';
import { deliveryDetailsError } from '../lib/booking-rules';

export interface PromoField {
  applied: string;
  busy: boolean;
  error: string | null;
  onApply: (code: string) => void;
}

const EMPTY_DELIVERY: DeliveryInput = { deliveryPerson: '', deliveryPersonPhone: '', pickUpInstructions: '', deliveryInstructions: '' };

/** The fare confirmation (spec §2): delivery adds its four fields. */
export function EstimateDialog({
  open,
  estimate,
  pickup,
  drop,
  carType,
  route,
  settings,
  delivery,
  busy,
  error,
  onCancel,
  onConfirm,
  promo,
}: {
  open: boolean;
  estimate: Estimate;
  pickup: Place;
  drop: Place;
  carType: string;
  route: LatLng[];
  settings: Settings;
  delivery: boolean;
  busy: boolean;
  error: string | null;
  onCancel: () => void;
  onConfirm: (details: DeliveryInput | null) => void;
  /** The promo code field: the code applied, asking the server, and its refusal. */
  promo?: PromoField;
}) {
  const { t } = useTranslation();
  const [details, setDetails] = useState<DeliveryInput>(EMPTY_DELIVERY);
  const [detailsError, setDetailsError] = useState<string | null>(null);
  const [code, setCode] = useState(promo?.applied ?? '');
  const discount = estimate.promo_applied ? (estimate.discount_amount ?? 0) : 0;
  const distance = distanceIn(estimate.distance_in_km, settings);
  const time = durationKey(estimate.time_in_secs);
  const set = (name: keyof DeliveryInput) => (event: React.ChangeEvent<HTMLInputElement>) =>
    setDetails((current) => ({ ...current, [name]: event.target.value }));

  const confirm = () => {
    if (delivery) {
      const problem = deliveryDetailsError(details);
      setDetailsError(problem);
      if (problem) return;
      onConfirm(details);
    } else {
      onConfirm(null);
    }
  };

  return (
    <Dialog open={open} onClose={busy ? undefined : onCancel} fullWidth maxWidth="sm" data-testid="estimate-dialog">
      <DialogTitle>{t('booking.estimate_title')}</DialogTitle>
      <DialogContent>
        <Stack spacing={2}>
          <MapView
            height={200}
            route={route}
            markers={[
              { id: 'pickup', kind: 'pickup', lat: pickup.lat, lng: pickup.lng, label: pickup.add },
              { id: 'drop', kind: 'drop', lat: drop.lat, lng: drop.lng, label: drop.add },
            ]}
          />
          <Stack spacing={1}>
            <Stack direction="row" spacing={1} alignItems="flex-start">
              <TripOriginIcon color="success" fontSize="small" sx={{ mt: 0.3 }} />
              <Typography>{pickup.add}</Typography>
            </Stack>
            <Stack direction="row" spacing={1} alignItems="flex-start">
              <PlaceIcon color="error" fontSize="small" sx={{ mt: 0.3 }} />
              <Typography>{drop.add}</Typography>
            </Stack>
          </Stack>
          <Divider />
          <Stack direction="row" spacing={3} flexWrap="wrap" useFlexGap>
            <Box>
              <Typography variant="caption" color="text.secondary">
                {t('booking.car_type')}
              </Typography>
              <Typography fontWeight={600}>{carType}</Typography>
            </Box>
            <Box>
              <Typography variant="caption" color="text.secondary">
                {t('booking.distance')}
              </Typography>
              <Typography fontWeight={600}>{t(distance.unit, { value: distance.value })}</Typography>
            </Box>
            <Box>
              <Typography variant="caption" color="text.secondary">
                {t('booking.time')}
              </Typography>
              <Typography fontWeight={600}>{t(time.key, time.values)}</Typography>
            </Box>
          </Stack>
          <Box sx={{ bgcolor: 'primary.main', color: 'primary.contrastText', borderRadius: 2, p: 2, textAlign: 'center' }}>
            <Typography variant="body2">{t('booking.estimated_fare')}</Typography>
            <Typography variant="h4" fontWeight={800} data-testid="estimate-fare">
              {formatMoney(estimate.estimateFare, settings)}
            </Typography>
            {discount > 0 && (
              <Typography variant="body2" data-testid="estimate-discount">
                {t('booking.promo_discount', { discount: formatMoney(discount, settings), payable: formatMoney(estimate.payableAmount ?? estimate.estimateFare - discount, settings) })}
              </Typography>
            )}
          </Box>
          {promo && (
            <Stack direction="row" spacing={1} alignItems="flex-start">
              <TextField
                size="small"
                label={t('booking.promo_code')}
                value={code}
                onChange={(event) => setCode(event.target.value.toUpperCase())}
                onKeyDown={(event) => {
                  if (event.key === 'Enter') {
                    event.preventDefault();
                    promo.onApply(code.trim());
                  }
                }}
                error={Boolean(promo.error)}
                helperText={promo.error ? t(promo.error) : promo.applied ? t('booking.promo_applied', { code: promo.applied }) : ' '}
                sx={{ flex: 1 }}
                slotProps={{ htmlInput: { 'data-testid': 'promo-code', dir: 'ltr', maxLength: 32 } }}
              />
              <Button
                variant="outlined"
                onClick={() => promo.onApply(promo.applied && code.trim() === promo.applied ? '' : code.trim())}
                disabled={promo.busy || busy || (!code.trim() && !promo.applied)}
                data-testid="promo-apply"
                sx={{ mt: 0.25 }}
              >
                {promo.applied && code.trim() === promo.applied ? t('booking.promo_remove') : t('booking.promo_apply')}
              </Button>
            </Stack>
          )}
          {delivery && (
            <Stack spacing={1.5}>
              <Typography fontWeight={600}>{t('booking.delivery_details')}</Typography>
              <TextField
                label={t('booking.delivery_person')}
                value={details.deliveryPerson}
                onChange={set('deliveryPerson')}
                slotProps={{ htmlInput: { 'data-testid': 'delivery-person' } }}
              />
              <TextField
                label={t('booking.delivery_person_phone')}
                value={details.deliveryPersonPhone}
                onChange={set('deliveryPersonPhone')}
                slotProps={{ htmlInput: { inputMode: 'tel', dir: 'ltr', 'data-testid': 'delivery-phone' } }}
              />
              <TextField
                label={t('booking.pickup_instructions')}
                value={details.pickUpInstructions}
                onChange={set('pickUpInstructions')}
                multiline
                slotProps={{ htmlInput: { 'data-testid': 'pickup-instructions' } }}
              />
              <TextField
                label={t('booking.delivery_instructions')}
                value={details.deliveryInstructions}
                onChange={set('deliveryInstructions')}
                multiline
                slotProps={{ htmlInput: { 'data-testid': 'delivery-instructions' } }}
              />
              {detailsError && (
                <Alert severity="error" data-testid="delivery-error">
                  {t(detailsError)}
                </Alert>
              )}
            </Stack>
          )}
          {error && (
            <Alert severity="error" data-testid="estimate-error">
              {t(error)}
            </Alert>
          )}
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button onClick={onCancel} disabled={busy}>
          {t('common.cancel')}
        </Button>
        <Button variant="contained" onClick={confirm} disabled={busy} data-testid="confirm-booking">
          {busy ? t('booking.booking_in_progress') : t('booking.confirm')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
