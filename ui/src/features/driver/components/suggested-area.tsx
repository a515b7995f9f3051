import PlaceIcon from '@mui/icons-material/Place';
import { Box, Stack, Typography } from '@mui/material';
import { useMemo } from 'react';
import { MapView } from '@/components/map/map-view';
import type { MapMarker } from '@/components/map/types';
import { useAppTexts } from '@/lib/app-texts';
import type { SuggestedArea } from '@/types/api';
import { useSuggestedArea } from '../api/driver';

/** A free driver's hint: the nearby area where riders are expected and few
 * drivers are free, on a small map beside where the driver is. Only a hint:
 * nothing changes if the driver stays. */
export function SuggestedAreaHint({ position }: { position: { lat: number; lng: number } | null }) {
  const area = useSuggestedArea(true);
  if (!area.data) return null;
  return <AreaMap area={area.data} position={position} />;
}

function AreaMap({ area, position }: { area: SuggestedArea; position: { lat: number; lng: number } | null }) {
  const { t, i18n } = useAppTexts();
  const ring = useMemo(() => area.boundary.map(([lng, lat]) => ({ lat, lng })), [area.boundary]);
  const markers: MapMarker[] = position ? [{ id: 'me', kind: 'me', lat: position.lat, lng: position.lng }] : [];
  const number = (value: number, digits: number) => value.toLocaleString(i18n.language, { maximumFractionDigits: digits });
  return (
    <Box sx={{ mt: 2 }} data-testid="suggested-area" data-cell={area.cell}>
      <Stack direction="row" spacing={1} alignItems="center" sx={{ mb: 1 }}>
        <PlaceIcon fontSize="small" color="warning" />
        <Typography variant="subtitle1" fontWeight={700}>
          {t('driver.area_title')}
        </Typography>
      </Stack>
      <Typography variant="body2" color="text.secondary" sx={{ mb: 1 }} data-testid="suggested-area-text">
        {t('driver.area_hint', { count: Math.max(1, Math.round(area.expectedPerHour)), km: number(area.distanceKm, 1) })}
      </Typography>
      <MapView
        markers={markers}
        area={ring}
        height={{ xs: 220, md: 280 }}
        frame={{ points: position ? [position, ...ring] : ring, key: area.cell }}
      />
    </Box>
  );
}
