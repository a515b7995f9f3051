import { Step, StepLabel, Stepper } from '@mui/material';
import { useTranslation } from 'react-i18next';
import type { BookingStatus } from '@/types/api';
import { stepIndex, TRIP_STEPS } from '../lib/booking-status';

export function TripProgress({ status }: { status: BookingStatus }) {
  const { t } = useTranslation();
  if (status === 'CANCELLED') return null;
  const active = stepIndex(status);
  return (
    <Stepper activeStep={status === 'COMPLETE' ? TRIP_STEPS.length : active} alternativeLabel sx={{ overflowX: 'auto', pb: 1 }}>
      {TRIP_STEPS.map((step) => (
        <Step key={step}>
          <StepLabel>{t(`status.${step}`)}</StepLabel>
        </Step>
      ))}
    </Stepper>
  );
}
