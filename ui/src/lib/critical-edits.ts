import { useSettings } from '@/lib/app-data';

/** Spec §6: `AllowCriticalEditsAdmin` off is demo mode — contact data hidden,
 * exports off, writes refused (the server enforces it; screens say so first). */
export function useCriticalEditsAllowed(): boolean {
  return useSettings().AllowCriticalEditsAdmin !== false;
}
