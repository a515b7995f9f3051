// What the app loads at start (spec §1): settings, languages and car types.
import { queryOptions, useQuery } from '@tanstack/react-query';
import { api, isApiError } from '@/lib/api-client';
import { queryKeys } from '@/lib/query-keys';
import type { CarType, Language, PublicSettings } from '@/types/api';

/** Null when the server has no settings ('No Database Settings found'). */
export async function getSettings(): Promise<PublicSettings | null> {
  try {
    const settings = await api.get<PublicSettings | null>('/settings');
    if (!settings || typeof settings !== 'object' || Object.keys(settings).length === 0) return null;
    return settings;
  } catch (error) {
    if (isApiError(error) && error.status === 404) return null;
    throw error;
  }
}

export const settingsQueryOptions = () =>
  queryOptions({ queryKey: queryKeys.settings, queryFn: getSettings, staleTime: 5 * 60_000 });

export function getCarTypes() {
  return api.get<CarType[]>('/cartypes');
}

export const carTypesQueryOptions = () =>
  queryOptions({ queryKey: queryKeys.carTypes, queryFn: getCarTypes, staleTime: 5 * 60_000 });

/** The server's languages; an empty list while it has no languages route, so
 * the bundled dictionaries and then `en` are used. */
export async function getLanguages(): Promise<Language[]> {
  try {
    const answer = await api.get<Language[] | { items: Language[] } | { langlist: Language[] }>('/languages');
    if (Array.isArray(answer)) return answer;
    if ('items' in answer && Array.isArray(answer.items)) return answer.items;
    if ('langlist' in answer && Array.isArray(answer.langlist)) return answer.langlist;
    return [];
  } catch (error) {
    if (isApiError(error) && (error.missingRoute || error.status === 404)) return [];
    throw error;
  }
}

export const languagesQueryOptions = () =>
  queryOptions({ queryKey: queryKeys.languages, queryFn: getLanguages, staleTime: 30 * 60_000 });

/** Settings once the start-up gate has loaded them. */
export function useSettings(): PublicSettings {
  const { data } = useQuery(settingsQueryOptions());
  if (!data) throw new Error('useSettings used before the settings loaded');
  return data;
}

export function useCarTypes() {
  return useQuery(carTypesQueryOptions());
}

export function useLanguages() {
  return useQuery(languagesQueryOptions());
}
