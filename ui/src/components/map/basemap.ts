import { queryOptions } from '@tanstack/react-query';
import type { StyleSpecification } from 'maplibre-gl';
import { api, isApiError } from '@/lib/api-client';
import { queryKeys } from '@/lib/query-keys';

/** The server's basemap style (its OpenStreetMap extract, served as vector
 * tiles), or null when the server has no map and the offline style is used. */
export async function getBasemapStyle(): Promise<StyleSpecification | null> {
  try {
    return await api.get<StyleSpecification>('/geo/basemap/style.json');
  } catch (error) {
    if (isApiError(error) && (error.status === 404 || error.missingRoute)) return null;
    throw error;
  }
}

export const basemapQueryOptions = () =>
  // The map of a running server does not change; a failed fetch falls back
  // to the offline style rather than retrying behind a blank map.
  queryOptions({ queryKey: queryKeys.basemap, queryFn: getBasemapStyle, staleTime: Infinity, retry: 1 });
