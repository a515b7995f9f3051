import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import { queryKeys } from '@/lib/query-keys';
import type { User, UserLang } from '@/types/api';

export interface ProfileUpdate {
  firstName: string;
  lastName: string;
  email?: string;
  mobile?: string;
  lang?: UserLang;
  bankName?: string;
  bankCode?: string;
  bankAccount?: string;
}

function userOf(answer: User | { user: User }) {
  return 'user' in answer ? answer.user : answer;
}

/** spec §7 updateProfile; the route comes with the administration issue. */
export async function updateProfile(update: ProfileUpdate) {
  return userOf(await api.patch<User | { user: User }>('/users/me', update));
}

export async function uploadUserImage(kind: 'profile-image' | 'license-image', file: File) {
  const form = new FormData();
  form.append('file', file);
  return userOf(await api.upload<User | { user: User }>(`/users/me/${kind}`, form));
}

export function useUpdateProfile() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: updateProfile,
    meta: { handlesErrors: true },
    onSuccess: (user) => client.setQueryData(queryKeys.me, user),
  });
}

export function useUploadUserImage(kind: 'profile-image' | 'license-image') {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (file: File) => uploadUserImage(kind, file),
    meta: { handlesErrors: true },
    onSuccess: (user) => client.setQueryData(queryKeys.me, user),
  });
}
