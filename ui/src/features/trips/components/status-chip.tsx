import { Chip } from '@mui/material';
import { useTranslation } from 'react-i18next';
import type { BookingStatus } from '@/types/api';
import { STATUS_COLOURS } from '../lib/booking-status';

export function StatusChip({ status, size = 'small' }: { status: BookingStatus; size?: 'small' | 'medium' }) {
  const { t } = useTranslation();
  return <Chip size={size} color={STATUS_COLOURS[status]} label={t(`status.${status}`)} data-testid="status-chip" data-status={status} />;
}
