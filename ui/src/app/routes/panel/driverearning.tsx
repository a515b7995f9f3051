import { PanelPage } from '@/components/panel/panel-page';
import { EarningsReport } from '@/features/money/components/earnings-report';

export default function DriverEarningScreen() {
  return (
    <PanelPage title="panel.menu.driverearning">
      <EarningsReport kind="driver" />
    </PanelPage>
  );
}
