// Issue #37: a paid trip's receipt, as a PDF to keep or a page to read.
// The server says which bookings have one (paid or complete, or a charged
// cancellation); the buttons only show for those.
import DescriptionIcon from '@mui/icons-material/Description';
import DownloadIcon from '@mui/icons-material/Download';
import { Button, Stack } from '@mui/material';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { notify } from '@/components/ui/notifications/notifications-store';
import { apiDownload, saveFile } from '@/lib/api-client';
import { errorText } from '@/lib/server-errors';
import type { Booking } from '@/types/api';

/** The bookings the server has a receipt for (`engine::receipt::has_receipt`). */
export function hasReceipt(booking: Pick<Booking, 'status' | 'cancellationFee'>): boolean {
  if (booking.status === 'PAID' || booking.status === 'COMPLETE') return true;
  return booking.status === 'CANCELLED' && Number(booking.cancellationFee ?? 0) > 0;
}

export function ReceiptButtons({ booking }: { booking: Booking }) {
  const { t, i18n } = useTranslation();
  const [busy, setBusy] = useState(false);
  if (!hasReceipt(booking)) return null;
  const fetchReceipt = async (format: 'pdf' | 'html') => {
    setBusy(true);
    try {
      const file = await apiDownload(`/bookings/${booking.id}/receipt`, { format });
      if (format === 'pdf') saveFile(file);
      else window.open(URL.createObjectURL(file.blob), '_blank', 'noopener');
    } catch (error) {
      notify({ severity: 'error', message: errorText(error, t, (key) => i18n.exists(key)), translated: true });
    } finally {
      setBusy(false);
    }
  };
  return (
    <Stack direction="row" spacing={1} useFlexGap sx={{ flexWrap: 'wrap' }} data-testid="trip-receipt">
      <Button variant="outlined" size="small" startIcon={<DownloadIcon />} disabled={busy} onClick={() => void fetchReceipt('pdf')} data-testid="receipt-pdf">
        {t('trip.receipt_download')}
      </Button>
      <Button size="small" startIcon={<DescriptionIcon />} disabled={busy} onClick={() => void fetchReceipt('html')} data-testid="receipt-view">
        {t('trip.receipt_view')}
      </Button>
    </Stack>
  );
}
