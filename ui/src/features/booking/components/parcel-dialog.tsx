import {
  Button,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  FormControl,
  FormControlLabel,
  FormLabel,
  Radio,
  RadioGroup,
  Stack,
} from '@mui/material';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { formatMoney } from '@/lib/format';
import type { CarType, Settings } from '@/types/api';

export interface ParcelChoice {
  parcelTypeIndex?: number;
  optionIndex?: number;
}

/** The parcel type and option chooser, with their amounts (spec §2 landing modals). */
export function ParcelDialog({
  open,
  carType,
  settings,
  onCancel,
  onConfirm,
}: {
  open: boolean;
  carType: CarType;
  settings: Settings;
  onCancel: () => void;
  onConfirm: (choice: ParcelChoice) => void;
}) {
  const { t } = useTranslation();
  // The original chooser always had the first of each selected.
  const [parcelTypeIndex, setParcelTypeIndex] = useState(0);
  const [optionIndex, setOptionIndex] = useState(0);
  return (
    <Dialog open={open} onClose={onCancel} fullWidth maxWidth="xs" data-testid="parcel-dialog">
      <DialogTitle>{t('booking.parcel_title')}</DialogTitle>
      <DialogContent>
        <Stack spacing={2}>
          {carType.parcelTypes.length > 0 && (
            <FormControl>
              <FormLabel>{t('booking.parcel_type')}</FormLabel>
              <RadioGroup value={parcelTypeIndex} onChange={(event) => setParcelTypeIndex(Number(event.target.value))} data-testid="parcel-types">
                {carType.parcelTypes.map((choice, index) => (
                  <FormControlLabel
                    key={choice.description}
                    value={index}
                    control={<Radio />}
                    label={`${choice.description} (${formatMoney(choice.amount, settings)})`}
                  />
                ))}
              </RadioGroup>
            </FormControl>
          )}
          {carType.options.length > 0 && (
            <FormControl>
              <FormLabel>{t('booking.parcel_option')}</FormLabel>
              <RadioGroup value={optionIndex} onChange={(event) => setOptionIndex(Number(event.target.value))} data-testid="parcel-options">
                {carType.options.map((choice, index) => (
                  <FormControlLabel
                    key={choice.description}
                    value={index}
                    control={<Radio />}
                    label={`${choice.description} (${formatMoney(choice.amount, settings)})`}
                  />
                ))}
              </RadioGroup>
            </FormControl>
          )}
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button onClick={onCancel}>{t('common.cancel')}</Button>
        <Button
          variant="contained"
          onClick={() =>
            onConfirm({
              parcelTypeIndex: carType.parcelTypes.length > 0 ? parcelTypeIndex : undefined,
              optionIndex: carType.options.length > 0 ? optionIndex : undefined,
            })
          }
          data-testid="parcel-confirm"
        >
          {t('common.continue')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
