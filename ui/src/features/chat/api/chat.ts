import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import { queryKeys } from '@/lib/query-keys';
import type { ChatMessage } from '@/types/api';

export async function getChat(bookingId: string) {
  const answer = await api.get<{ messages: ChatMessage[] }>(`/bookings/${bookingId}/chat`);
  return answer.messages ?? [];
}

export const chatQueryOptions = (bookingId: string) =>
  queryOptions({ queryKey: queryKeys.chat(bookingId), queryFn: () => getChat(bookingId) });

export function useChat(bookingId: string) {
  return useQuery(chatQueryOptions(bookingId));
}

export function sendChatMessage(bookingId: string, message: string) {
  return api.post<ChatMessage>(`/bookings/${bookingId}/chat`, { message });
}

export function useSendChatMessage(bookingId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (message: string) => sendChatMessage(bookingId, message),
    onSuccess: (stored) => {
      // The socket echoes the same message to this page; the same message is kept once.
      client.setQueryData<ChatMessage[]>(queryKeys.chat(bookingId), (messages = []) =>
        messages.some((known) => known.from === stored.from && known.createdAt === stored.createdAt && known.message === stored.message)
          ? messages
          : [...messages, stored],
      );
    },
  });
}
