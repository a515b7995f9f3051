// The map without WebGL: the same markers and route on a plain background,
// projected into the box (for browsers without WebGL, and the unit tests).
import { Box, Typography } from '@mui/material';
import { MarkerGraphic } from './markers';
import { AREA_COLOUR, ATTRIBUTION, MAP_HEIGHT, ROUTE_COLOUR, TRACK_COLOUR, type MapViewProps } from './types';

export function SvgMap({ markers, route = [], track = [], area = [], height = MAP_HEIGHT }: MapViewProps) {
  const points = [...markers, ...route, ...track, ...area];
  const lats = points.map((point) => point.lat);
  const lngs = points.map((point) => point.lng);
  const pad = 0.004;
  const south = Math.min(...lats, Infinity) - pad;
  const north = Math.max(...lats, -Infinity) + pad;
  const west = Math.min(...lngs, Infinity) - pad;
  const east = Math.max(...lngs, -Infinity) + pad;
  const width = 1000;
  const box = 600;
  const project = (lat: number, lng: number) => ({
    x: points.length ? ((lng - west) / (east - west || 1)) * width : width / 2,
    y: points.length ? ((north - lat) / (north - south || 1)) * box : box / 2,
  });
  const path = route.map((point) => project(point.lat, point.lng));
  const driven = track.map((point) => project(point.lat, point.lng));
  const outline = area.map((point) => project(point.lat, point.lng));
  return (
    <Box sx={{ position: 'relative', height, bgcolor: '#e9eee9', borderRadius: 2, overflow: 'hidden' }} data-testid="map" data-renderer="svg">
      <svg viewBox={`0 0 ${width} ${box}`} preserveAspectRatio="none" width="100%" height="100%" aria-hidden="true">
        {outline.length > 2 && (
          <polygon
            data-testid="map-area"
            points={outline.map((point) => `${point.x},${point.y}`).join(' ')}
            fill={AREA_COLOUR}
            fillOpacity={0.25}
            stroke={AREA_COLOUR}
            strokeWidth={2}
            vectorEffect="non-scaling-stroke"
          />
        )}
        {path.length > 1 && (
          <polyline
            points={path.map((point) => `${point.x},${point.y}`).join(' ')}
            fill="none"
            stroke={ROUTE_COLOUR}
            strokeWidth={6}
            strokeLinejoin="round"
            vectorEffect="non-scaling-stroke"
          />
        )}
        {driven.length > 1 && (
          <polyline
            data-testid="map-track"
            points={driven.map((point) => `${point.x},${point.y}`).join(' ')}
            fill="none"
            stroke={TRACK_COLOUR}
            strokeWidth={3}
            strokeDasharray="6 4"
            strokeLinejoin="round"
            vectorEffect="non-scaling-stroke"
          />
        )}
      </svg>
      {markers.map((marker) => {
        const { x, y } = project(marker.lat, marker.lng);
        return (
          <Box
            key={marker.id}
            data-testid={`map-marker-${marker.kind}`}
            data-lat={marker.lat.toFixed(6)}
            data-lng={marker.lng.toFixed(6)}
            data-lost={marker.lost ? 'true' : undefined}
            title={marker.label}
            sx={{
              position: 'absolute',
              left: `${(x / width) * 100}%`,
              top: `${(y / box) * 100}%`,
              transform: marker.kind === 'car' || marker.kind === 'car-busy' || marker.kind === 'me' ? 'translate(-50%, -50%)' : 'translate(-50%, -100%)',
              transition: 'left 900ms linear, top 900ms linear',
            }}
          >
            <MarkerGraphic kind={marker.kind} heading={marker.heading} lost={marker.lost} />
          </Box>
        );
      })}
      <Typography variant="caption" sx={{ position: 'absolute', bottom: 4, insetInlineEnd: 8, bgcolor: 'rgba(255,255,255,0.8)', px: 0.5 }}>
        {ATTRIBUTION}
      </Typography>
    </Box>
  );
}
