import {
  Button,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  FormControl,
  FormControlLabel,
  FormHelperText,
  FormLabel,
  Radio,
  RadioGroup,
  Stack,
} from '@mui/material';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { formatMoney } from '@/lib/format';
import type { CarType, Settings } from '@/types/api';
import { optionRequired, parcelChoice } from '../lib/booking-rules';

export interface ParcelChoice {
  parcelTypeIndex?: number;
  optionIndex?: number;
}

/** The value of the option group's "None". */
const NONE = -1;

/** The parcel type and option chooser, with their amounts (spec §2 landing
 * modals). A parcel type is required, the first chosen to begin with, as the
 * original chooser had it; an option is not (issue #34): "None" to begin with. */
export function ParcelDialog({
  open,
  carType,
  settings,
  initial,
  error,
  onCancel,
  onConfirm,
}: {
  open: boolean;
  carType: CarType;
  settings: Settings;
  /** The choice made before, when the chooser opens again. */
  initial?: ParcelChoice;
  /** The server's refusal of the choice: the field it names and its text's key. */
  error?: { field: 'parcelTypeIndex' | 'optionIndex'; key: string } | null;
  onCancel: () => void;
  onConfirm: (choice: ParcelChoice) => void;
}) {
  const { t } = useTranslation();
  const parcelTypes = carType.parcelTypes ?? [];
  const options = carType.options ?? [];
  const [parcelTypeIndex, setParcelTypeIndex] = useState(initial?.parcelTypeIndex ?? 0);
  const required = optionRequired(carType);
  const [optionIndex, setOptionIndex] = useState(initial?.optionIndex ?? (required ? 0 : NONE));
  return (
    <Dialog open={open} onClose={onCancel} fullWidth maxWidth="xs" data-testid="parcel-dialog">
      <DialogTitle>{t('booking.parcel_title')}</DialogTitle>
      <DialogContent>
        <Stack spacing={2}>
          {parcelTypes.length > 0 && (
            <FormControl required error={error?.field === 'parcelTypeIndex'}>
              <FormLabel>{t('booking.parcel_type')}</FormLabel>
              <RadioGroup value={parcelTypeIndex} onChange={(event) => setParcelTypeIndex(Number(event.target.value))} data-testid="parcel-types">
                {parcelTypes.map((choice, index) => (
                  <FormControlLabel
                    key={choice.description}
                    value={index}
                    control={<Radio />}
                    label={`${choice.description} (${formatMoney(choice.amount, settings)})`}
                  />
                ))}
              </RadioGroup>
              {error?.field === 'parcelTypeIndex' && <FormHelperText data-testid="parcel-type-error">{t(error.key)}</FormHelperText>}
            </FormControl>
          )}
          {options.length > 0 && (
            <FormControl error={error?.field === 'optionIndex'}>
              <FormLabel>{t('booking.parcel_option')}</FormLabel>
              <RadioGroup value={optionIndex} onChange={(event) => setOptionIndex(Number(event.target.value))} data-testid="parcel-options">
                {!required && <FormControlLabel value={NONE} control={<Radio />} label={t('booking.option_none')} data-testid="parcel-option-none" />}
                {options.map((choice, index) => (
                  <FormControlLabel
                    key={choice.description}
                    value={index}
                    control={<Radio />}
                    label={`${choice.description} (${formatMoney(choice.amount, settings)})`}
                  />
                ))}
              </RadioGroup>
              {error?.field === 'optionIndex' && <FormHelperText data-testid="parcel-option-error">{t(error.key)}</FormHelperText>}
            </FormControl>
          )}
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button onClick={onCancel}>{t('common.cancel')}</Button>
        <Button
          variant="contained"
          onClick={() => onConfirm(parcelChoice(carType, parcelTypeIndex, optionIndex === NONE ? null : optionIndex))}
          data-testid="parcel-confirm"
        >
          {t('common.continue')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
