import { PanelPage } from '@/components/panel/panel-page';
import { AdminWithdraws } from '@/features/money/components/admin-withdraws';

export default function WithdrawsScreen() {
  return (
    <PanelPage title="panel.menu.withdraws">
      <AdminWithdraws />
    </PanelPage>
  );
}
