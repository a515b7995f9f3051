import { queryOptions, useQuery } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import { queryKeys } from '@/lib/query-keys';
import type { Directions, LatLng, Place, PlaceSuggestion } from '@/types/api';

export async function getAutocomplete(searchKeyword: string, signal?: AbortSignal): Promise<PlaceSuggestion[]> {
  const answer = await api.post<{ searchResults: PlaceSuggestion[] }>('/geo/autocomplete', { searchKeyword });
  if (signal?.aborted) return [];
  return answer.searchResults ?? [];
}

export const autocompleteQueryOptions = (keyword: string) =>
  queryOptions({
    queryKey: queryKeys.geo.autocomplete(keyword),
    queryFn: ({ signal }) => getAutocomplete(keyword, signal),
    staleTime: 5 * 60_000,
  });

export function useAutocomplete(keyword: string, enabled: boolean) {
  return useQuery({ ...autocompleteQueryOptions(keyword), enabled: enabled && keyword.trim().length >= 2 });
}

/** A suggestion resolved to a pickup or drop (spec §7 getcoords). */
export async function getPlace(placeId: string, description: string): Promise<Place> {
  const answer = await api.post<{ coords: LatLng; address?: string }>('/geo/place', { place_id: placeId });
  return { lat: answer.coords.lat, lng: answer.coords.lng, add: answer.address || description };
}

export function getDirections(start: LatLng, dest: LatLng) {
  return api.post<Directions>('/geo/directions', { start: { lat: start.lat, lng: start.lng }, dest: { lat: dest.lat, lng: dest.lng } });
}
