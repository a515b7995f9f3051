import SendIcon from '@mui/icons-material/Send';
import { Box, IconButton, Paper, Stack, TextField, Typography } from '@mui/material';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { chatDate, chatTime } from '@/lib/format';
import type { ChatMessage } from '@/types/api';
import { useChat, useSendChatMessage } from '../api/chat';

/** Chat between the booking's rider and driver, with spec §9's date
 * (MM:DD:YYYY) and time (HH:MM) in the reader's time zone. */
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

  let lastDate = '';
  return (
    <Paper variant="outlined" sx={{ display: 'flex', flexDirection: 'column', height: 360 }} data-testid="chat-panel">
      <Box sx={{ px: 2, py: 1, borderBottom: 1, borderColor: 'divider' }}>
        <Typography fontWeight={700}>{t('chat.title', { name: otherName })}</Typography>
      </Box>
      <Box ref={listRef} sx={{ flexGrow: 1, overflowY: 'auto', p: 1.5 }} data-testid="chat-messages">
        {messages.length === 0 && (
          <Typography color="text.secondary" textAlign="center" sx={{ mt: 4 }}>
            {chat.isPending ? t('common.loading') : t('chat_not_found')}
          </Typography>
        )}
        {messages.map((message: ChatMessage, index) => {
          const mine = message.from === userId;
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
              <Stack alignItems={mine ? 'flex-end' : 'flex-start'} sx={{ mb: 1 }}>
                <Box
                  data-testid="chat-message"
                  data-mine={mine ? 'true' : 'false'}
                  sx={{
                    maxWidth: '80%',
                    px: 1.5,
                    py: 1,
                    borderRadius: 2,
                    bgcolor: mine ? 'primary.main' : 'grey.100',
                    color: mine ? 'primary.contrastText' : 'text.primary',
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
