import PhotoCameraIcon from '@mui/icons-material/PhotoCamera';
import { Alert, Button, Stack, Typography } from '@mui/material';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, errorKey } from '@/lib/api-client';
import { useSettings } from '@/lib/app-data';
import type { Booking } from '@/types/api';
import { storeBooking } from '../api/bookings';

/** Pickup and delivery photos for parcel bookings (spec §3 file storage:
 * bookings/{id}/{pickup_image|deliver_image}); shown when settings ask for them. */
export function ParcelPhotos({ booking }: { booking: Booking }) {
  const { t } = useTranslation();
  const settings = useSettings();
  const client = useQueryClient();
  const [message, setMessage] = useState<{ severity: 'success' | 'error'; key: string } | null>(null);
  if (booking.appcat !== 'delivery') return null;
  const slots = [
    { name: 'pickup_image' as const, show: settings.AllowDeliveryPickupImageCapture && ['ARRIVED', 'STARTED'].includes(booking.status), label: t('driver.pickup_photo') },
    { name: 'deliver_image' as const, show: settings.AllowFinalDeliveryImageCapture && ['STARTED', 'REACHED'].includes(booking.status), label: t('driver.delivery_photo') },
  ].filter((slot) => slot.show);
  if (slots.length === 0) return null;

  const upload = async (name: 'pickup_image' | 'deliver_image', file: File | undefined) => {
    if (!file) {
      setMessage({ severity: 'error', key: 'choose_image_first' });
      return;
    }
    const form = new FormData();
    form.append('kind', name);
    form.append('file', file);
    try {
      const updated = await api.upload<Booking>(`/bookings/${booking.id}/images`, form);
      storeBooking(client, updated);
      setMessage({ severity: 'success', key: 'driver.photo_saved' });
    } catch (error) {
      const key = errorKey(error);
      setMessage({ severity: 'error', key: key === 'not_found' ? 'uploads_unavailable' : key });
    }
  };

  return (
    <Stack spacing={1}>
      <Typography variant="subtitle2">{t('driver.parcel_photos')}</Typography>
      {slots.map((slot) => (
        <Button key={slot.name} component="label" variant="outlined" startIcon={<PhotoCameraIcon />}>
          {booking[slot.name] ? t('driver.replace_photo', { name: slot.label }) : slot.label}
          <input
            hidden
            type="file"
            accept="image/*"
            capture="environment"
            onChange={(event) => void upload(slot.name, event.target.files?.[0])}
            data-testid={`parcel-photo-input-${slot.name}`}
          />
        </Button>
      ))}
      {message && (
        <Alert severity={message.severity} data-testid="parcel-photo-message">
          {t(message.key)}
        </Alert>
      )}
    </Stack>
  );
}
