import PlaceIcon from '@mui/icons-material/Place';
import TripOriginIcon from '@mui/icons-material/TripOrigin';
import { Autocomplete, Box, InputAdornment, TextField, Typography } from '@mui/material';
import { useState } from 'react';
import { notify } from '@/components/ui/notifications/notifications-store';
import { useDebouncedValue } from '@/hooks/use-debounced-value';
import { useAppTexts } from '@/lib/app-texts';
import type { Place, PlaceSuggestion } from '@/types/api';
import { getPlace, useAutocomplete } from '../api/geo';

/** Spec §9: place search debounce. */
export const PLACE_SEARCH_DEBOUNCE_MS = 200;

/** Pickup or drop: autocomplete through the server's geo routes, then the
 * chosen suggestion resolved to coordinates. */
export function PlaceField({
  kind,
  value,
  onChange,
  canSearch,
  error,
}: {
  kind: 'pickup' | 'drop';
  value: Place | null;
  onChange: (place: Place | null) => void;
  /** Searching needs a signed-in user. */
  canSearch: boolean;
  error?: boolean;
}) {
  // A delivery's places are the pickup and delivery addresses.
  const { t } = useAppTexts();
  const [input, setInput] = useState(value?.add ?? '');
  const [resolving, setResolving] = useState(false);
  const keyword = useDebouncedValue(input, PLACE_SEARCH_DEBOUNCE_MS);
  const searching = keyword !== value?.add;
  const suggestions = useAutocomplete(keyword, canSearch && searching);
  const selected: PlaceSuggestion | null = value
    ? { place_id: `chosen:${value.lat},${value.lng}`, description: value.add ?? '', main_text: '', secondary_text: '' }
    : null;
  const options = suggestions.data ?? [];

  const choose = async (suggestion: PlaceSuggestion | null) => {
    if (!suggestion) {
      onChange(null);
      return;
    }
    setResolving(true);
    try {
      const place = await getPlace(suggestion.place_id, suggestion.description);
      onChange(place);
      setInput(place.add ?? '');
    } catch {
      notify({ severity: 'error', message: 'google_places_error' });
    } finally {
      setResolving(false);
    }
  };

  const label = kind === 'pickup' ? t('booking.pickup') : t('booking.drop');
  return (
    <Autocomplete<PlaceSuggestion>
      value={selected}
      options={selected && !options.some((option) => option.place_id === selected.place_id) ? [selected, ...options] : options}
      filterOptions={(all) => all}
      getOptionLabel={(option) => option.description}
      isOptionEqualToValue={(a, b) => a.place_id === b.place_id}
      inputValue={input}
      onInputChange={(_, text, reason) => {
        if (reason !== 'reset') setInput(text);
      }}
      onChange={(_, suggestion) => void choose(suggestion)}
      loading={suggestions.isFetching || resolving}
      noOptionsText={canSearch ? (input.trim().length < 2 ? t('booking.type_to_search') : t('booking.no_places')) : t('booking.sign_in_to_search')}
      loadingText={t('common.loading')}
      data-testid={`${kind}-field`}
      renderOption={(props, option) => {
        const { key, ...rest } = props as typeof props & { key: string };
        return (
          <Box component="li" key={key} {...rest}>
            <PlaceIcon sx={{ color: 'text.secondary', marginInlineEnd: 1.5 }} fontSize="small" />
            <Box>
              <Typography variant="body2" fontWeight={600}>
                {option.main_text || option.description}
              </Typography>
              {option.secondary_text && (
                <Typography variant="caption" color="text.secondary">
                  {option.secondary_text}
                </Typography>
              )}
            </Box>
          </Box>
        );
      }}
      renderInput={(params) => (
        <TextField
          {...params}
          label={label}
          placeholder={kind === 'pickup' ? t('booking.pickup_placeholder') : t('booking.drop_placeholder')}
          error={error}
          slotProps={{
            input: {
              ...params.InputProps,
              startAdornment: (
                <InputAdornment position="start">
                  {kind === 'pickup' ? <TripOriginIcon fontSize="small" color="success" /> : <PlaceIcon fontSize="small" color="error" />}
                </InputAdornment>
              ),
            },
            htmlInput: { ...params.inputProps, 'data-testid': `${kind}-input` },
          }}
        />
      )}
    />
  );
}
