import { PanelPage } from '@/components/panel/panel-page';
import { OwedReportView } from '@/features/trips/components/owed-report';

/** Issue #34: unpaid trips and cancellation fees owed, next to the earnings. */
export default function MoneyOwedScreen() {
  return (
    <PanelPage title="panel.menu.moneyowed">
      <OwedReportView />
    </PanelPage>
  );
}
