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
import { useEffect, useRef, useState } from 'react';
import { MapView } from '@/components/map/map-view';
import { useAppTexts } from '@/lib/app-texts';
import { distanceIn, durationKey, formatMoney } from '@/lib/format';
import type { Estimate, LatLng, Place, Settings } from '@/types/api';
import type { DeliveryInput } from '../api/bookings';
import { deliveryFieldProblem, type DeliveryField } from '../lib/booking-rules';
import { FareBreakdownTable } from './fare-breakdown';

export interface PromoField {
  applied: string;
  busy: boolean;
  error: string | null;
  onApply: (code: string) => void;
}

const EMPTY_DELIVERY: DeliveryInput = { deliveryPerson: '', deliveryPersonPhone: '', pickUpInstructions: '', deliveryInstructions: '' };

/** A delivery field that is wrong, and the key of the text said on it. */
export interface FieldError {
  field: DeliveryField;
  key: string;
}

/** The fare confirmation (spec §2), with the fare's breakdown (issue #34):
 * delivery adds its four fields, and a missing or wrong one is said on the
 * field itself, which takes the focus. */
export function EstimateDialog({
  open,
  estimate,
  pickup,
  drop,
  carType,
  choices,
  route,
  settings,
  delivery,
  busy,
  error,
  refused,
  onCancel,
  onConfirm,
  promo,
}: {
  open: boolean;
  estimate: Estimate;
  pickup: Place;
  drop: Place;
  carType: string;
  /** The parcel type and option chosen (their descriptions), for the breakdown's lines. */
  choices?: { parcel?: string; option?: string };
  route: LatLng[];
  settings: Settings;
  delivery: boolean;
  busy: boolean;
  error: string | null;
  /** The server refused a delivery field: said on that field. */
  refused?: FieldError | null;
  onCancel: () => void;
  onConfirm: (details: DeliveryInput | null) => void;
  /** The promo code field: the code applied, asking the server, and its refusal. */
  promo?: PromoField;
}) {
  const { t } = useAppTexts(delivery ? 'delivery' : 'taxi');
  const [details, setDetails] = useState<DeliveryInput>(EMPTY_DELIVERY);
  const [fieldError, setFieldError] = useState<FieldError | null>(null);
  const inputs = useRef<Partial<Record<DeliveryField, HTMLInputElement | HTMLTextAreaElement | null>>>({});
  const [code, setCode] = useState(promo?.applied ?? '');
  const discount = estimate.promo_applied ? (estimate.discount_amount ?? 0) : 0;
  const distance = distanceIn(estimate.distance_in_km, settings);
  const time = durationKey(estimate.time_in_secs);
  const set = (name: DeliveryField) => (event: React.ChangeEvent<HTMLInputElement>) => {
    setDetails((current) => ({ ...current, [name]: event.target.value }));
    setFieldError((current) => (current?.field === name ? null : current));
  };
  const pointAt = (problem: FieldError) => {
    setFieldError(problem);
    inputs.current[problem.field]?.focus();
  };
  // The server's refusal names a field: the same as our own check's.
  useEffect(() => {
    if (refused) pointAt(refused);
  }, [refused]);

  const confirm = () => {
    if (delivery) {
      const problem = deliveryFieldProblem(details);
      if (problem) {
        pointAt(problem);
        return;
      }
      setFieldError(null);
      onConfirm(details);
    } else {
      onConfirm(null);
    }
  };
  const deliveryField = (name: DeliveryField, label: string, testId: string, extra: { multiline?: boolean; tel?: boolean } = {}) => (
    <TextField
      id={testId}
      label={t(label)}
      value={details[name]}
      onChange={set(name)}
      multiline={extra.multiline}
      required={name === 'deliveryPerson' || name === 'deliveryPersonPhone'}
      error={fieldError?.field === name}
      helperText={fieldError?.field === name ? t(fieldError.key) : undefined}
      inputRef={(element: HTMLInputElement | HTMLTextAreaElement | null) => {
        inputs.current[name] = element;
      }}
      slotProps={{ htmlInput: { 'data-testid': testId, ...(extra.tel ? { inputMode: 'tel', dir: 'ltr' } : {}) } }}
    />
  );

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
          <Box sx={{ bgcolor: 'primary.main', color: 'primary.contrastText', borderRadius: 2, p: 2, textAlign: 'center' }} data-testid="estimate-total">
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
          {estimate.breakdown && (
            <FareBreakdownTable
              breakdown={estimate.breakdown}
              settings={settings}
              details={{ distance: t(distance.unit, { value: distance.value }), time: t(time.key, time.values), parcel: choices?.parcel, option: choices?.option }}
            />
          )}
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
              {deliveryField('deliveryPerson', 'booking.delivery_person', 'delivery-person')}
              {deliveryField('deliveryPersonPhone', 'booking.delivery_person_phone', 'delivery-phone', { tel: true })}
              {deliveryField('pickUpInstructions', 'booking.pickup_instructions', 'pickup-instructions', { multiline: true })}
              {deliveryField('deliveryInstructions', 'booking.delivery_instructions', 'delivery-instructions', { multiline: true })}
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
