import { zodResolver } from '@hookform/resolvers/zod';
import CheckCircleIcon from '@mui/icons-material/CheckCircle';
import {
  Alert,
  Box,
  Button,
  CircularProgress,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  MenuItem,
  Paper,
  Stack,
  TextField,
  Typography,
} from '@mui/material';
import { useState, type ReactNode } from 'react';
import { Controller, useForm } from 'react-hook-form';
import { Link as RouterLink, useNavigate } from 'react-router';
import { z } from 'zod';
import { PaymentProviderDialog } from '@/components/payment/payment-provider-dialog';
import { AlertDialog } from '@/components/ui/alert-dialog';
import { ApiError, errorKey } from '@/lib/api-client';
import { useCarTypes, useSettings } from '@/lib/app-data';
import { useAppTexts } from '@/lib/app-texts';
import { useUser } from '@/lib/auth';
import { formatMoney } from '@/lib/format';
import { checkoutFields, checkoutReturnUrls, postToGateway, TRIP_PAYMENT_PARAM } from '@/lib/payments';
import { decodePolyline } from '@/lib/polyline';
import type { Booking, CarType, Directions, Estimate, Place, PricedChoice, User } from '@/types/api';
import { useCreateBooking, useEstimate, type DeliveryInput, type TripInput } from '../api/bookings';
import { getDirections } from '../api/geo';
import {
  adminBookingRuleError,
  BOOK_LATER_MIN_LEAD_MINUTES,
  bookingRuleError,
  DELIVERY_FIELD_TEXT,
  needsParcelChoice,
  refusedDeliveryField,
  parseLocalDateTime,
  toLocalDateTimeValue,
} from '../lib/booking-rules';
import { EstimateDialog, type FieldError } from './estimate-dialog';
import { ParcelDialog, type ParcelChoice } from './parcel-dialog';
import { PlaceField } from './place-field';

const placeSchema = z.object({ lat: z.number(), lng: z.number(), add: z.string() });

const formSchema = z.object({
  pickup: placeSchema.nullable(),
  drop: placeSchema.nullable(),
  carType: z.string(),
  bookingType: z.enum(['now', 'later']),
  tripDate: z.string(),
});

export type BookingFormValues = z.infer<typeof formSchema>;

/** Spec §9: success and payment dialogs clear after 1.5 s. */
const CLEAR_AFTER_MS = 1500;

type Step =
  | { name: 'idle' }
  | { name: 'routing' }
  | { name: 'parcel'; trip: TripInput; directions: Directions; error?: { field: 'parcelTypeIndex' | 'optionIndex'; key: string } }
  | { name: 'estimate'; trip: TripInput; directions: Directions; estimate: Estimate }
  | { name: 'done'; booking: Booking };

/** The admin's Add booking (spec §4 "Add booking flow"): the same flow for a
 * rider the admin chose, whose picker the screen draws above the places. */
export interface ForRider {
  rider: User | null;
  picker: ReactNode;
}

export function BookingForm({ forRider }: { forRider?: ForRider } = {}) {
  // The form speaks of parcels on a delivery platform (issue #34).
  const { t } = useAppTexts();
  const navigate = useNavigate();
  const settings = useSettings();
  const { data: user } = useUser();
  const { data: carTypes = [] } = useCarTypes();
  const estimate = useEstimate();
  const create = useCreateBooking();
  const [step, setStep] = useState<Step>({ name: 'idle' });
  const [alert, setAlert] = useState<string | null>(null);
  const [createError, setCreateError] = useState<string | null>(null);
  const [refusedField, setRefusedField] = useState<FieldError | null>(null);
  const [paying, setPaying] = useState<Booking | null>(null);
  const [promoError, setPromoError] = useState<string | null>(null);
  const [promoBusy, setPromoBusy] = useState(false);

  const form = useForm<BookingFormValues>({
    resolver: zodResolver(formSchema),
    defaultValues: { pickup: null, drop: null, carType: '', bookingType: 'now', tripDate: '' },
  });
  const bookingType = form.watch('bookingType');

  const startEstimate = async (trip: TripInput, directions: Directions) => {
    try {
      const answer = await estimate.mutateAsync(trip);
      setCreateError(null);
      setRefusedField(null);
      setPromoError(null);
      setStep({ name: 'estimate', trip, directions, estimate: answer });
    } catch (error) {
      // A refused parcel choice is said in the chooser, on the group it names.
      const field = error instanceof ApiError ? error.field : undefined;
      if ((field === 'parcelTypeIndex' || field === 'optionIndex') && needsParcelChoice(carTypes.find((car) => car.name === trip.carType), settings.appcat)) {
        setStep({ name: 'parcel', trip, directions, error: { field, key: errorKey(error) } });
        return;
      }
      setStep({ name: 'idle' });
      setAlert(errorKey(error));
    }
  };

  const onSubmit = form.handleSubmit(async (values) => {
    const draft = {
      pickup: values.pickup as Place | null,
      drop: values.drop as Place | null,
      carType: values.carType,
      bookLater: values.bookingType === 'later',
      tripDate: parseLocalDateTime(values.tripDate),
    };
    const problem = forRider ? adminBookingRuleError(draft, forRider.rider, Date.now()) : bookingRuleError(draft, user, Date.now());
    if (problem) {
      setAlert(problem);
      return;
    }
    const trip: TripInput = { pickup: draft.pickup!, drop: draft.drop!, carType: draft.carType, customer: forRider?.rider?.id };
    setStep({ name: 'routing' });
    let directions: Directions;
    try {
      directions = await getDirections(trip.pickup, trip.drop);
    } catch {
      setStep({ name: 'idle' });
      setAlert('place_to_coords_error');
      return;
    }
    const carType = carTypes.find((car) => car.name === trip.carType);
    if (needsParcelChoice(carType, settings.appcat)) {
      setStep({ name: 'parcel', trip, directions });
      return;
    }
    await startEstimate(trip, directions);
  });

  /** Asks for the estimate again with a promo code ('' removes it); a
   * refused code keeps the estimate shown and says why under the field. */
  const applyPromo = async (code: string) => {
    if (step.name !== 'estimate') return;
    const trip: TripInput = { ...step.trip, promo: code || undefined };
    setPromoBusy(true);
    try {
      const answer = await estimate.mutateAsync(trip);
      setPromoError(null);
      setStep({ ...step, trip, estimate: answer });
    } catch (error) {
      setPromoError(errorKey(error));
    } finally {
      setPromoBusy(false);
    }
  };

  const confirm = async (details: DeliveryInput | null) => {
    if (step.name !== 'estimate') return;
    const values = form.getValues();
    const bookLater = values.bookingType === 'later';
    setCreateError(null);
    setRefusedField(null);
    try {
      const booking = await create.mutateAsync({
        ...step.trip,
        ...(details ?? {}),
        bookLater,
        tripdate: bookLater ? (parseLocalDateTime(values.tripDate) ?? undefined) : undefined,
        payment_mode: settings.appcat === 'delivery' ? 'card' : undefined,
      });
      if (booking.status === 'PAYMENT_PENDING') {
        setStep({ name: 'idle' });
        setPaying(booking);
      } else {
        setStep({ name: 'done', booking });
      }
      form.reset({ pickup: null, drop: null, carType: values.carType, bookingType: 'now', tripDate: '' });
    } catch (error) {
      // A refused delivery field is said on the field (issue #34), not only above the buttons.
      const field = error instanceof ApiError ? refusedDeliveryField(error.field) : null;
      if (field) setRefusedField({ field, key: DELIVERY_FIELD_TEXT[field] });
      else setCreateError(errorKey(error));
    }
  };

  const closePayment = () => {
    // Spec §4: on close or pay, booking and estimate are cleared after 1.5 s.
    // Not paid yet, the booking waits for its payment: the rider is taken to
    // it, where it says so and offers Pay again (issue #34).
    const unpaid = paying;
    setTimeout(() => {
      setPaying(null);
      if (unpaid) void navigate(`/bookings?trip=${encodeURIComponent(unpaid.id)}`);
    }, CLEAR_AFTER_MS);
  };

  const busy = step.name === 'routing' || estimate.isPending;
  const minDate = toLocalDateTimeValue(Date.now() + BOOK_LATER_MIN_LEAD_MINUTES * 60_000);

  return (
    <Paper elevation={6} sx={{ p: { xs: 2.5, sm: 3.5 }, borderRadius: 4 }} data-testid="booking-form">
      <Typography variant="h5" component="h2" fontWeight={700} sx={{ mb: 2 }}>
        {forRider ? t('panel.addbooking.form_title') : t('booking.form_title')}
      </Typography>
      <Box component="form" noValidate onSubmit={onSubmit}>
        <Stack spacing={2}>
          {forRider?.picker}
          <Controller
            control={form.control}
            name="pickup"
            render={({ field }) => (
              <PlaceField kind="pickup" value={field.value as Place | null} onChange={field.onChange} canSearch={Boolean(user)} />
            )}
          />
          <Controller
            control={form.control}
            name="drop"
            render={({ field }) => (
              <PlaceField kind="drop" value={field.value as Place | null} onChange={field.onChange} canSearch={Boolean(user)} />
            )}
          />
          <Controller
            control={form.control}
            name="carType"
            render={({ field }) => (
              <TextField
                select
                label={t('booking.car_type')}
                value={field.value}
                onChange={field.onChange}
                slotProps={{ select: { SelectDisplayProps: { 'data-testid': 'cartype-select' } as React.HTMLAttributes<HTMLDivElement> } }}
              >
                {carTypes.length === 0 && (
                  <MenuItem value="" disabled>
                    {t('no_cars')}
                  </MenuItem>
                )}
                {carTypes.map((car) => (
                  <MenuItem key={car.id} value={car.name} data-testid={`cartype-${car.name}`}>
                    <Stack>
                      <Typography fontWeight={600}>{car.name}</Typography>
                      <Typography variant="caption" color="text.secondary">
                        {[car.extra_info, t('booking.min_fare', { amount: formatMoney(car.min_fare, settings) })].filter(Boolean).join(' · ')}
                      </Typography>
                    </Stack>
                  </MenuItem>
                ))}
              </TextField>
            )}
          />
          <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2}>
            <Controller
              control={form.control}
              name="bookingType"
              render={({ field }) => (
                <TextField
                  select
                  label={t('booking.when')}
                  value={field.value}
                  onChange={(event) => {
                    field.onChange(event.target.value);
                    // Spec §2: switching between Book Now and Book Later resets the date.
                    form.setValue('tripDate', '');
                  }}
                  sx={{ minWidth: 170 }}
                  slotProps={{ select: { SelectDisplayProps: { 'data-testid': 'booking-type-select' } as React.HTMLAttributes<HTMLDivElement> } }}
                >
                  <MenuItem value="now" data-testid="book-now-option">
                    {t('booking.book_now')}
                  </MenuItem>
                  <MenuItem value="later" data-testid="book-later-option">
                    {t('booking.book_later')}
                  </MenuItem>
                </TextField>
              )}
            />
            {bookingType === 'later' && (
              <TextField
                type="datetime-local"
                label={t('booking.trip_date')}
                {...form.register('tripDate')}
                fullWidth
                slotProps={{ inputLabel: { shrink: true }, htmlInput: { min: minDate, 'data-testid': 'trip-date' } }}
                helperText={t('booking.book_later_help', { minutes: BOOK_LATER_MIN_LEAD_MINUTES })}
              />
            )}
          </Stack>
          <Button
            type="submit"
            variant="contained"
            color="secondary"
            size="large"
            disabled={busy}
            data-testid="book-button"
            startIcon={busy ? <CircularProgress size={18} color="inherit" /> : undefined}
            sx={{ py: 1.5, fontSize: '1.05rem' }}
          >
            {bookingType === 'later' ? t('booking.schedule') : t('booking.book')}
          </Button>
          {!user && (
            <Typography variant="body2" color="text.secondary" textAlign="center">
              {t('booking.login_hint')}{' '}
              <RouterLink to="/login">{t('nav.sign_in')}</RouterLink>
            </Typography>
          )}
        </Stack>
      </Box>

      {step.name === 'parcel' && (
        <ParcelDialog
          open
          carType={carTypes.find((car) => car.name === step.trip.carType)!}
          settings={settings}
          initial={{ parcelTypeIndex: step.trip.parcelTypeIndex, optionIndex: step.trip.optionIndex }}
          error={step.error}
          onCancel={() => setStep({ name: 'idle' })}
          onConfirm={(choice: ParcelChoice) => void startEstimate({ ...step.trip, ...choice }, step.directions)}
        />
      )}

      {step.name === 'estimate' && (
        <EstimateDialog
          open
          estimate={step.estimate}
          pickup={step.trip.pickup}
          drop={step.trip.drop}
          carType={step.trip.carType}
          choices={parcelNames(carTypes.find((car) => car.name === step.trip.carType), step.trip)}
          route={decodePolyline(step.directions.polylinePoints)}
          settings={settings}
          delivery={settings.appcat === 'delivery'}
          busy={create.isPending}
          error={createError}
          refused={refusedField}
          onCancel={() => setStep({ name: 'idle' })}
          onConfirm={(details) => void confirm(details)}
          promo={{ applied: step.trip.promo ?? '', busy: promoBusy, error: promoError, onApply: (code) => void applyPromo(code) }}
        />
      )}

      <Dialog open={step.name === 'done'} onClose={() => setStep({ name: 'idle' })} maxWidth="xs" fullWidth data-testid="booking-success">
        <DialogTitle sx={{ display: 'flex', alignItems: 'center', gap: 1 }}>
          <CheckCircleIcon color="success" />
          {t('booking.success_title')}
        </DialogTitle>
        <DialogContent>
          {step.name === 'done' && (
            <Stack spacing={1}>
              <Typography>{t('booking_success', { reference: step.booking.reference })}</Typography>
              {forRider && (
                <Typography variant="body2" data-testid="booking-success-id">
                  {t('panel.addbooking.booking_id', { id: step.booking.id, rider: step.booking.customer_name })}
                </Typography>
              )}
              <Typography variant="body2" color="text.secondary">
                {step.booking.bookLater ? t('booking.success_later') : t('booking.success_now')}
              </Typography>
            </Stack>
          )}
        </DialogContent>
        <DialogActions>
          <Button onClick={() => setStep({ name: 'idle' })}>{t('common.close')}</Button>
          {step.name === 'done' && (
            <Button
              variant="contained"
              component={RouterLink}
              to={forRider ? '/bookings' : `/bookings?trip=${step.booking.id}`}
              data-testid="go-to-booking"
            >
              {t('booking.view_trip')}
            </Button>
          )}
        </DialogActions>
      </Dialog>

      <AlertDialog open={alert !== null} message={alert ? t(alert) : ''} onClose={() => setAlert(null)}>
        {alert === 'profile_incomplete' && (
          <Alert severity="info" sx={{ mt: 2 }}>
            <RouterLink to="/profile">{t('booking.complete_profile')}</RouterLink>
          </Alert>
        )}
        {alert === 'must_login' && (
          <Box sx={{ mt: 2 }}>
            <Button component={RouterLink} to="/login" variant="outlined">
              {t('nav.sign_in')}
            </Button>
          </Box>
        )}
      </AlertDialog>

      {paying && user && (
        <PaymentProviderDialog
          open
          amountText={formatMoney(paying.payableAmount || paying.trip_cost || paying.estimate, settings)}
          onClose={closePayment}
          onChoose={(provider) =>
            postToGateway(provider.link, checkoutFields(paying, user, settings, checkoutReturnUrls('/bookings', TRIP_PAYMENT_PARAM, { trip: paying.id })))
          }
        />
      )}
    </Paper>
  );
}

/** The descriptions of the parcel type and option a trip chose, for the estimate's breakdown. */
function parcelNames(carType: CarType | undefined, trip: TripInput) {
  const name = (list: PricedChoice[] | undefined, index: number | undefined) => (index === undefined ? undefined : list?.[index]?.description);
  return { parcel: name(carType?.parcelTypes, trip.parcelTypeIndex), option: name(carType?.options, trip.optionIndex) };
}
