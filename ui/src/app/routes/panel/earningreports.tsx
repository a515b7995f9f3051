import { PanelPage } from '@/components/panel/panel-page';
import { EarningsReport } from '@/features/money/components/earnings-report';

export default function EarningReportsScreen() {
  return (
    <PanelPage title="panel.menu.earningreports">
      <EarningsReport kind="earnings" />
    </PanelPage>
  );
}
