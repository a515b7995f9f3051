import { PanelPage } from '@/components/panel/panel-page';
import { PaymentGateways } from '@/features/gateways/components/payment-gateways';

/** Issue #37: the payment gateways' settings and who changed them. */
export default function PaymentSettingsScreen() {
  return (
    <PanelPage title="panel.menu.paymentsettings">
      <PaymentGateways />
    </PanelPage>
  );
}
