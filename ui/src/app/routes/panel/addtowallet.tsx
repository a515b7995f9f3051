import { PanelPage } from '@/components/panel/panel-page';
import { AddToWallet } from '@/features/money/components/add-to-wallet';

export default function AddToWalletScreen() {
  return (
    <PanelPage title="panel.menu.addtowallet">
      <AddToWallet />
    </PanelPage>
  );
}
