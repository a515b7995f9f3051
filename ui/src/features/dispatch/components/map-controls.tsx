import { Box, FormControlLabel, MenuItem, Paper, Stack, Switch, TextField, Typography } from '@mui/material';
import { useTranslation } from 'react-i18next';
import {
  DRIVER_COLOURS,
  STALE_DRIVER_COLOUR,
  HEX_DEMAND_COLOUR,
  HEX_SHORT_COLOUR,
  HEX_SUPPLY_COLOUR,
  OFFER_LINE_COLOUR,
  ASSIGNED_LINE_COLOUR,
  UNASSIGNED_COLOUR,
  WAIT_COLOURS,
} from '../lib/colours';
import { DRIVER_STATES, HEX_RESOLUTIONS } from '../lib/types';

function Swatch({ colour, round = true, ring }: { colour: string; round?: boolean; ring?: string }) {
  return (
    <Box
      component="span"
      sx={{
        display: 'inline-block',
        width: 12,
        height: 12,
        borderRadius: round ? '50%' : 0.5,
        bgcolor: colour,
        border: ring ? `3px solid ${ring}` : '1px solid #fff',
        boxShadow: '0 0 0 1px rgba(0,0,0,0.2)',
        boxSizing: 'content-box',
      }}
    />
  );
}

function Key({ colour, label, round, ring }: { colour: string; label: string; round?: boolean; ring?: string }) {
  return (
    <Stack direction="row" spacing={0.75} sx={{ alignItems: 'center' }}>
      <Swatch colour={colour} round={round} ring={ring} />
      <Typography variant="caption">{label}</Typography>
    </Stack>
  );
}

/** The hexagon layer's switch and resolution. */
export function HexControls({
  showHexes,
  onShowHexes,
  resolution,
  onResolution,
  refused,
}: {
  showHexes: boolean;
  onShowHexes: (show: boolean) => void;
  resolution: number;
  onResolution: (resolution: number) => void;
  refused: string | null;
}) {
  const { t } = useTranslation();
  return (
    <Stack direction="row" spacing={1.5} useFlexGap sx={{ alignItems: 'center', flexWrap: 'wrap' }}>
      <FormControlLabel
        control={<Switch checked={showHexes} onChange={(event) => onShowHexes(event.target.checked)} slotProps={{ input: { 'data-testid': 'hex-toggle' } as React.InputHTMLAttributes<HTMLInputElement> }} />}
        label={t('dispatch.hex.show')}
      />
      <TextField
        select
        size="small"
        label={t('dispatch.hex.resolution')}
        value={resolution}
        onChange={(event) => onResolution(Number(event.target.value))}
        sx={{ minWidth: 130 }}
        slotProps={{ select: { SelectDisplayProps: { 'data-testid': 'hex-resolution' } as React.HTMLAttributes<HTMLDivElement> } }}
      >
        {HEX_RESOLUTIONS.map((value) => (
          <MenuItem key={value} value={value}>
            {t(`dispatch.hex.resolution_${value}`)}
          </MenuItem>
        ))}
      </TextField>
      {refused && (
        <Typography variant="caption" color="error" data-testid="hex-refused">
          {t('dispatch.hex.refused')}
        </Typography>
      )}
    </Stack>
  );
}

/** What the colours on the map mean. */
export function MapLegend() {
  const { t } = useTranslation();
  return (
    <Paper variant="outlined" sx={{ p: 1.25 }} data-testid="dispatch-legend">
      <Stack spacing={1}>
        <Typography variant="caption" fontWeight={700}>
          {t('dispatch.legend.drivers')}
        </Typography>
        <Stack direction="row" spacing={1.5} useFlexGap sx={{ flexWrap: 'wrap' }}>
          {DRIVER_STATES.map((state) => (
            <Key key={state} colour={DRIVER_COLOURS[state]} label={t(`dispatch.state.${state}`)} />
          ))}
          <Key colour={STALE_DRIVER_COLOUR} label={t('dispatch.state.stale')} />
        </Stack>
        <Typography variant="caption" fontWeight={700}>
          {t('dispatch.legend.pickups')}
        </Typography>
        <Stack direction="row" spacing={1.5} useFlexGap sx={{ flexWrap: 'wrap' }}>
          <Key colour={WAIT_COLOURS.fresh} label={t('dispatch.legend.waiting')} />
          <Key colour={WAIT_COLOURS.over_2} label={t('dispatch.legend.over_2')} />
          <Key colour={WAIT_COLOURS.over_5} label={t('dispatch.legend.over_5')} />
          <Key colour={WAIT_COLOURS.fresh} ring={UNASSIGNED_COLOUR} label={t('dispatch.legend.unassigned')} />
          <Key colour={ASSIGNED_LINE_COLOUR} label={t('dispatch.legend.going')} />
          <Key colour={DRIVER_COLOURS.on_trip} label={t('dispatch.legend.on_trip')} />
        </Stack>
        <Stack direction="row" spacing={1.5} useFlexGap sx={{ flexWrap: 'wrap' }}>
          <Key colour={OFFER_LINE_COLOUR} label={t('dispatch.legend.offer_line')} round={false} />
          <Key colour={ASSIGNED_LINE_COLOUR} label={t('dispatch.legend.assigned_line')} round={false} />
        </Stack>
        <Typography variant="caption" fontWeight={700}>
          {t('dispatch.legend.hexes')}
        </Typography>
        <Stack direction="row" spacing={1.5} useFlexGap sx={{ flexWrap: 'wrap' }}>
          <Key colour={HEX_SUPPLY_COLOUR} label={t('dispatch.legend.hex_supply')} round={false} />
          <Key colour={HEX_DEMAND_COLOUR} label={t('dispatch.legend.hex_demand')} round={false} />
          <Key colour={HEX_SHORT_COLOUR} label={t('dispatch.legend.hex_short')} round={false} />
        </Stack>
      </Stack>
    </Paper>
  );
}
