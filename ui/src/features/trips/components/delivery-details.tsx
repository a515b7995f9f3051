import { Box, Divider, Stack, Typography } from '@mui/material';
import { useSettings } from '@/lib/app-data';
import { useAppTexts } from '@/lib/app-texts';
import { formatMoney } from '@/lib/format';
import type { Booking, PricedChoice } from '@/types/api';

/** What a parcel booking carries besides the trip (spec §3 Booking: the
 * parcel type and option, the delivery person and the instructions, and the
 * pickup and delivery photos the driver took), for the rider's trip view and
 * the driver's trip screen. Nothing for a taxi booking. */
export function DeliveryDetails({ booking }: { booking: Booking }) {
  const { t } = useAppTexts(booking.appcat);
  const settings = useSettings();
  if (booking.appcat !== 'delivery') return null;
  const choice = (value: PricedChoice | null | undefined) => (value ? `${value.description} (${formatMoney(value.amount, settings)})` : '');
  const rows = [
    { id: 'parcel-type', label: t('booking.parcel_type'), value: choice(booking.parcelTypeSelected) },
    { id: 'parcel-option', label: t('booking.parcel_option'), value: choice(booking.optionSelected) },
    { id: 'delivery-person', label: t('booking.delivery_person'), value: booking.deliveryPerson },
    { id: 'delivery-phone', label: t('booking.delivery_person_phone'), value: booking.deliveryPersonPhone, ltr: true },
    { id: 'pickup-instructions', label: t('booking.pickup_instructions'), value: booking.pickUpInstructions },
    { id: 'delivery-instructions', label: t('booking.delivery_instructions'), value: booking.deliveryInstructions },
  ].filter((row) => row.value && row.value.trim() !== '');
  const photos = [
    { id: 'pickup', label: t('driver.pickup_photo'), url: booking.pickup_image },
    { id: 'deliver', label: t('driver.delivery_photo'), url: booking.deliver_image },
  ].filter((photo) => Boolean(photo.url));

  return (
    <Stack spacing={1} data-testid="delivery-details">
      <Divider />
      <Typography variant="subtitle2" fontWeight={700}>
        {t('booking.delivery_details')}
      </Typography>
      {rows.map((row) => (
        <Stack key={row.id} direction="row" spacing={2} justifyContent="space-between">
          <Typography variant="body2" color="text.secondary">
            {row.label}
          </Typography>
          <Typography variant="body2" fontWeight={600} textAlign="end" dir={row.ltr ? 'ltr' : undefined} data-testid={`delivery-detail-${row.id}`}>
            {row.value}
          </Typography>
        </Stack>
      ))}
      {photos.length > 0 && (
        <Stack direction="row" spacing={2} flexWrap="wrap" useFlexGap>
          {photos.map((photo) => (
            <Box key={photo.id} component="figure" sx={{ m: 0 }}>
              <Box
                component="img"
                src={photo.url ?? undefined}
                alt={photo.label}
                data-testid={`parcel-photo-${photo.id}`}
                sx={{ display: 'block', width: 140, height: 105, objectFit: 'cover', borderRadius: 1, border: 1, borderColor: 'divider' }}
              />
              <Typography component="figcaption" variant="caption" color="text.secondary">
                {photo.label}
              </Typography>
            </Box>
          ))}
        </Stack>
      )}
    </Stack>
  );
}
