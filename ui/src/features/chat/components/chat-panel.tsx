import SendIcon from '@mui/icons-material/Send';
import { Alert, Box, IconButton, Paper, Stack, TextField, Typography } from '@mui/material';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ServerErrorAlert } from '@/components/ui/server-error-alert';
import { isApiError } from '@/lib/api-client';
import { chatDate, chatTime } from '@/lib/format';
import type { ChatMessage } from '@/types/api';
import { useChat, useSendChatMessage } from '../api/chat';

/** The messages, one bubble each, with spec §9's date (MM:DD:YYYY) above a
 * new day and the time (HH:MM) in the reader's time zone. `mine` puts a
 * message on the end side in the primary colour; `sender` labels it. */
function ChatMessages({
  messages,
  pending,
  mine,
  sender,
}: {
  messages: ChatMessage[];
  pending: boolean;
  mine: (message: ChatMessage) => boolean;
  sender?: (message: ChatMessage) => string;
}) {
  const { t } = useTranslation();
  let lastDate = '';
  return (
    <>
      {messages.length === 0 && (
        <Typography color="text.secondary" textAlign="center" sx={{ my: 4 }}>
          {pending ? t('common.loading') : t('chat_not_found')}
        </Typography>
      )}
      {messages.map((message: ChatMessage, index) => {
        const ours = mine(message);
        const at = message.createdAt || Date.now();
        const date = chatDate(at);
        const showDate = date !== lastDate;
        lastDate = date;
        return (
          <Box key={`${message.createdAt}-${index}`}>
            {showDate && (
              <Typography variant="caption" color="text.secondary" component="div" textAlign="center" sx={{ my: 1 }} dir="ltr" data-testid="chat-date">
                {date}
              </Typography>
            )}
            <Stack alignItems={ours ? 'flex-end' : 'flex-start'} sx={{ mb: 1 }}>
              {sender && (
                <Typography variant="caption" color="text.secondary" data-testid="chat-sender">
                  {sender(message)}
                </Typography>
              )}
              <Box
                data-testid="chat-message"
                data-mine={ours ? 'true' : 'false'}
                sx={{
                  maxWidth: '80%',
                  px: 1.5,
                  py: 1,
                  borderRadius: 2,
                  bgcolor: ours ? 'primary.main' : 'grey.100',
                  color: ours ? 'primary.contrastText' : 'text.primary',
                }}
              >
                <Typography variant="body2" sx={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word' }}>
                  {message.message}
                </Typography>
                <Typography variant="caption" sx={{ opacity: 0.75, display: 'block', textAlign: 'end' }} dir="ltr" data-testid="chat-time">
                  {chatTime(at)}
                </Typography>
              </Box>
            </Stack>
          </Box>
        );
      })}
    </>
  );
}

/** Chat between the booking's rider and driver. */
export function ChatPanel({ bookingId, userId, otherName }: { bookingId: string; userId: string; otherName: string }) {
  const { t } = useTranslation();
  const chat = useChat(bookingId);
  const send = useSendChatMessage(bookingId);
  const [text, setText] = useState('');
  const listRef = useRef<HTMLDivElement>(null);
  const messages = chat.data ?? [];

  useEffect(() => {
    if (listRef.current) listRef.current.scrollTop = listRef.current.scrollHeight;
  }, [messages.length]);

  const submit = (event: React.FormEvent) => {
    event.preventDefault();
    const message = text.trim();
    if (!message) return;
    send.mutate(message, { onSuccess: () => setText('') });
  };

  return (
    <Paper variant="outlined" sx={{ display: 'flex', flexDirection: 'column', height: 360 }} data-testid="chat-panel">
      <Box sx={{ px: 2, py: 1, borderBottom: 1, borderColor: 'divider' }}>
        <Typography fontWeight={700}>{t('chat.title', { name: otherName })}</Typography>
      </Box>
      <Box ref={listRef} sx={{ flexGrow: 1, overflowY: 'auto', p: 1.5 }} data-testid="chat-messages">
        <ChatMessages messages={messages} pending={chat.isPending} mine={(message) => message.from === userId} />
      </Box>
      <Box component="form" onSubmit={submit} sx={{ display: 'flex', gap: 1, p: 1, borderTop: 1, borderColor: 'divider' }}>
        <TextField
          size="small"
          fullWidth
          placeholder={t('chat.placeholder')}
          value={text}
          onChange={(event) => setText(event.target.value)}
          slotProps={{ htmlInput: { maxLength: 1000, 'data-testid': 'chat-input' } }}
        />
        <IconButton type="submit" color="primary" disabled={send.isPending || !text.trim()} aria-label={t('chat.send')} data-testid="chat-send">
          <SendIcon sx={(theme) => ({ transform: theme.direction === 'rtl' ? 'scaleX(-1)' : 'none' })} />
        </IconButton>
      </Box>
    </Paper>
  );
}

/** Issue #34: the booking's chat as the operator reads it, without writing:
 * the rider's messages on one side, the driver's on the other, each named. */
export function ChatTranscript({ bookingId, names }: { bookingId: string; names: { rider: string; driver: string } }) {
  const { t } = useTranslation();
  const chat = useChat(bookingId);
  if (chat.isError) {
    // Not everyone may read a booking's chat (the server says who).
    return isApiError(chat.error) && (chat.error.status === 403 || chat.error.status === 404) ? (
      <Alert severity="info" data-testid="chat-unavailable">
        {t('booking_page.chat_unavailable')}
      </Alert>
    ) : (
      <ServerErrorAlert error={chat.error} onRetry={() => void chat.refetch()} />
    );
  }
  return (
    <Box sx={{ maxHeight: 320, overflowY: 'auto' }} data-testid="chat-transcript">
      <ChatMessages
        messages={chat.data ?? []}
        pending={chat.isPending}
        mine={(message) => message.source === 'driver'}
        sender={(message) => (message.source === 'driver' ? names.driver : message.source === 'rider' ? names.rider : t(`usertype.${message.source}`))}
      />
    </Box>
  );
}
