import CreditCardIcon from '@mui/icons-material/CreditCard';
import {
  Alert,
  Button,
  CircularProgress,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  List,
  ListItemButton,
  ListItemIcon,
  ListItemText,
  Typography,
} from '@mui/material';
import { useTranslation } from 'react-i18next';
import { usePaymentProviders } from '@/lib/payments';
import type { PaymentProvider } from '@/types/api';

/** The payment provider chooser (spec §2 landing modals; §4 pay now). */
export function PaymentProviderDialog({
  open,
  amountText,
  onChoose,
  onClose,
}: {
  open: boolean;
  amountText: string;
  onChoose: (provider: PaymentProvider) => void;
  onClose: () => void;
}) {
  const { t } = useTranslation();
  const providers = usePaymentProviders(open);
  return (
    <Dialog open={open} onClose={onClose} fullWidth maxWidth="xs" data-testid="payment-dialog">
      <DialogTitle>{t('payment.choose_provider')}</DialogTitle>
      <DialogContent>
        <Typography sx={{ mb: 1 }}>{t('payment.amount_due', { amount: amountText })}</Typography>
        {providers.isPending && <CircularProgress size={24} />}
        {providers.isError && <Alert severity="error">{t('provider_fetch_error')}</Alert>}
        {providers.data?.length === 0 && <Alert severity="info">{t('no_provider_found')}</Alert>}
        <List>
          {providers.data?.map((provider) => (
            <ListItemButton key={provider.name} onClick={() => onChoose(provider)} data-testid={`provider-${provider.name}`}>
              <ListItemIcon>
                <CreditCardIcon />
              </ListItemIcon>
              <ListItemText primary={t(`payment.provider.${provider.name}`, { defaultValue: provider.name })} />
            </ListItemButton>
          ))}
        </List>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>{t('common.close')}</Button>
      </DialogActions>
    </Dialog>
  );
}
