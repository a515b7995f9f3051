// Drivers' sign-up (spec §7 user_signup, issue #33): the sign-up itself,
// document uploads with progress, the driver's application, and the panel's
// approval queue and review.
import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { PageAnswer, PageParams } from '@/components/panel/panel-table';
import { API_PREFIX, ApiError, api, getBearerToken } from '@/lib/api-client';
import type { Application, DocumentKind, DriverApplication, DriverDocument, SignedIn, User } from '@/types/api';

export const applicationKeys = {
  mine: ['application', 'me'] as const,
  queue: ['application', 'queue'] as const,
  count: ['application', 'queue', 'count'] as const,
  of: (id: string) => ['application', 'user', id] as const,
};

export interface SignupInput {
  contact: string;
  code: string;
  usertype: 'driver';
  firstName: string;
  lastName: string;
  email?: string;
  carType: string;
  vehicleMake: string;
  vehicleModel: string;
  vehicleNumber: string;
  vehicleColor: string;
  vehicleYear: string;
  fleetCode?: string;
}

export function signUp(input: SignupInput) {
  return api.post<SignedIn>('/auth/signup', input);
}

export const myApplicationQuery = () =>
  queryOptions({ queryKey: applicationKeys.mine, queryFn: () => api.get<Application>('/drivers/me/application'), staleTime: 30_000 });

export function useMyApplication(enabled = true) {
  return useQuery({ ...myApplicationQuery(), enabled });
}

export interface DocumentFields {
  front: File;
  back?: File | null;
  number?: string;
  /** `YYYY-MM-DD`. */
  expiry?: string;
}

/** Uploads one document; `onProgress` gets 0 to 1 as the bytes go (fetch
 * cannot tell upload progress, so this one request uses XMLHttpRequest). */
export function uploadDocument(kind: DocumentKind, fields: DocumentFields, onProgress?: (share: number) => void): Promise<DriverDocument> {
  const form = new FormData();
  if (fields.number) form.set('number', fields.number);
  if (fields.expiry) form.set('expiry', fields.expiry);
  form.set('front', fields.front);
  if (fields.back) form.set('back', fields.back);
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open('POST', `${API_PREFIX}/drivers/me/documents/${kind}`);
    request.withCredentials = true;
    request.setRequestHeader('Accept', 'application/json');
    const token = getBearerToken();
    if (token) request.setRequestHeader('Authorization', `Bearer ${token}`);
    request.upload.onprogress = (event) => {
      if (event.lengthComputable) onProgress?.(event.loaded / event.total);
    };
    request.onerror = () => reject(new ApiError(0, 'unavailable', 'The service could not be reached.'));
    request.onload = () => {
      let payload: unknown = null;
      try {
        payload = JSON.parse(request.responseText);
      } catch {
        // not JSON: handled below
      }
      if (request.status >= 200 && request.status < 300 && payload) {
        resolve(payload as DriverDocument);
        return;
      }
      const detail = (payload as { error?: { code?: string; message?: string; field?: string } } | null)?.error;
      reject(new ApiError(request.status, detail?.code ?? 'invalid_input', detail?.message ?? request.statusText, detail?.field));
    };
    request.send(form);
  });
}

export function useUploadDocument() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ kind, fields, onProgress }: { kind: DocumentKind; fields: DocumentFields; onProgress?: (share: number) => void }) =>
      uploadDocument(kind, fields, onProgress),
    meta: { handlesErrors: true },
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: applicationKeys.mine });
      void client.invalidateQueries({ queryKey: ['auth', 'me'] });
    },
  });
}

// ---- the panel --------------------------------------------------------------------

export interface QueueAnswer extends PageAnswer<User> {
  total: number;
}

export function fetchQueuePage(params: PageParams, signal?: AbortSignal) {
  return api.get<QueueAnswer>('/drivers/applications', { limit: params.limit, after: params.after }, signal);
}

/** How many drivers wait, for the tab's badge. */
export function useQueueCount() {
  return useQuery({
    queryKey: applicationKeys.count,
    queryFn: async () => (await api.get<QueueAnswer>('/drivers/applications', { limit: 1 })).total,
    staleTime: 10_000,
  });
}

export function useDriverApplication(id: string | null) {
  return useQuery({
    queryKey: applicationKeys.of(id ?? ''),
    queryFn: () => api.get<DriverApplication>(`/users/${id}/documents`),
    enabled: Boolean(id),
  });
}

function useReviewMutation<Input>(run: (input: Input) => Promise<unknown>) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: run,
    meta: { handlesErrors: true },
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: ['application'] });
      void client.invalidateQueries({ queryKey: ['users'] });
    },
  });
}

export const useApproveDriver = () => useReviewMutation((id: string) => api.post<User>(`/users/${id}/approve`));
export const useRejectDriver = () =>
  useReviewMutation(({ id, reason }: { id: string; reason: string }) => api.post<DriverApplication>(`/users/${id}/reject`, { reason }));
