import { Step, StepLabel, Stepper } from '@mui/material';
import { useTranslation } from 'react-i18next';
import type { BookingStatus } from '@/types/api';
import { stepIndex, TRIP_STEPS } from '../lib/booking-status';

export function TripProgress({ status }: { status: BookingStatus }) {
  const { t } = useTranslation();
  if (status === 'CANCELLED') return null;
  const active = stepIndex(status);
  return (
    <Stepper
      activeStep={status === 'COMPLETE' ? TRIP_STEPS.length : active}
      alternativeLabel
      // On a phone six labels do not fit side by side: only the current one
      // is written out (the numbers and ticks still show where the trip is).
      sx={{ overflowX: 'auto', pb: 1, '& .MuiStepLabel-label:not(.Mui-active)': { display: { xs: 'none', sm: 'block' } } }}
    >
      {TRIP_STEPS.map((step) => (
        <Step key={step}>
          <StepLabel>{t(`status.${step}`)}</StepLabel>
        </Step>
      ))}
    </Stepper>
  );
}
