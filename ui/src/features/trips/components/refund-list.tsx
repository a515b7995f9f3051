// Issue #37: a booking's refunds, oldest first: how much, where it went (the
// card through its gateway, or the rider's wallet), why, when, and a gateway
// refund that was declined.
import { Box, Chip, List, ListItem, ListItemText, Stack, Typography } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { Ltr } from '@/components/ui/detail-line';
import { useSettings } from '@/lib/app-data';
import { formatDateTime, formatMoney } from '@/lib/format';
import type { Refund } from '@/types/api';

export function RefundList({ items, gateway }: { items: Refund[]; gateway?: string | null }) {
  const { t } = useTranslation();
  const settings = useSettings();
  return (
    <List dense disablePadding data-testid="refund-list">
      {items.map((item) => (
        <ListItem key={item.id} disableGutters data-testid="refund-row" data-destination={item.destination} data-status={item.status} data-amount={item.amount}>
          <ListItemText
            primary={
              <Stack direction="row" spacing={1} useFlexGap sx={{ alignItems: 'center', flexWrap: 'wrap' }}>
                <Typography variant="body2" fontWeight={700} color={item.status === 'failed' ? 'text.secondary' : 'text.primary'}>
                  <Ltr>{formatMoney(item.amount, settings)}</Ltr>
                </Typography>
                <Chip
                  size="small"
                  variant="outlined"
                  label={item.destination === 'gateway' ? t('booking_page.refund_to_gateway', { gateway: gateway || '—' }) : t('booking_page.refund_to_wallet')}
                />
                {item.status === 'failed' && <Chip size="small" color="error" label={t('booking_page.refund_failed')} data-testid="refund-failed" />}
              </Stack>
            }
            secondary={
              <>
                <Box component="span" sx={{ display: 'block', overflowWrap: 'anywhere' }}>
                  {item.reason}
                </Box>
                {/* A gateway's reference can be long: one line, whole on hover. */}
                <Box component="span" sx={{ display: 'block', overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' }} title={item.gateway_ref ?? undefined}>
                  <bdi>{formatDateTime(item.created_at)}</bdi>
                  {item.gateway_ref && (
                    <>
                      {' · '}
                      <bdi dir="ltr">{item.gateway_ref}</bdi>
                    </>
                  )}
                </Box>
              </>
            }
          />
        </ListItem>
      ))}
    </List>
  );
}
