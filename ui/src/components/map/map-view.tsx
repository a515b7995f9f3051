import { Box, Skeleton } from '@mui/material';
import { useQuery } from '@tanstack/react-query';
import { lazy, Suspense, useMemo } from 'react';
import { basemapQueryOptions } from './basemap';
import { SvgMap } from './svg-map';
import { MAP_HEIGHT, type MapViewProps } from './types';
import { hasWebGL } from './webgl';

const MaplibreMap = lazy(() => import('./maplibre-map'));

/** MapLibre GL where the browser has WebGL; otherwise the same picture in SVG. */
export function MapView(props: MapViewProps) {
  const webgl = useMemo(hasWebGL, []);
  if (!webgl) {
    const { styleUrl: _styleUrl, ...rest } = props;
    return <SvgMap {...rest} />;
  }
  return <WebglMap {...props} />;
}

/** The style, first found: one named in settings, the build's
 * VITE_MAP_STYLE_URL, the server's basemap of its OpenStreetMap extract,
 * else the offline style. */
function WebglMap({ styleUrl, ...props }: MapViewProps) {
  const named = styleUrl || import.meta.env.VITE_MAP_STYLE_URL || undefined;
  const basemap = useQuery({ ...basemapQueryOptions(), enabled: !named });
  const skeleton = <Skeleton variant="rounded" sx={{ height: props.height ?? MAP_HEIGHT }} />;
  if (!named && basemap.isPending) return skeleton;
  return (
    <Suspense fallback={skeleton}>
      <Box>
        <MaplibreMap {...props} mapStyle={named ?? basemap.data ?? undefined} />
      </Box>
    </Suspense>
  );
}
