import { Box, Skeleton } from '@mui/material';
import { lazy, Suspense, useMemo } from 'react';
import { SvgMap } from './svg-map';
import { MAP_HEIGHT, type MapViewProps } from './types';

const MaplibreMap = lazy(() => import('./maplibre-map'));

function hasWebGL() {
  try {
    const canvas = document.createElement('canvas');
    return Boolean(canvas.getContext('webgl2') ?? canvas.getContext('webgl'));
  } catch {
    return false;
  }
}

/** MapLibre GL where the browser has WebGL; otherwise the same picture in SVG. */
export function MapView({ styleUrl, ...props }: MapViewProps) {
  const webgl = useMemo(hasWebGL, []);
  // Settings may name a style; else the build's VITE_MAP_STYLE_URL; else the offline style.
  const style = styleUrl || import.meta.env.VITE_MAP_STYLE_URL || undefined;
  if (!webgl) return <SvgMap {...props} />;
  return (
    <Suspense fallback={<Skeleton variant="rounded" sx={{ height: props.height ?? MAP_HEIGHT }} />}>
      <Box>
        <MaplibreMap {...props} styleUrl={style} />
      </Box>
    </Suspense>
  );
}
