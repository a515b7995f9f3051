import { PanelPage } from '@/components/panel/panel-page';
import { CancelReasons } from '@/features/catalogue/components/cancel-reasons';

export default function CancelReasonsScreen() {
  return (
    <PanelPage title="panel.menu.cancelreasons">
      <CancelReasons />
    </PanelPage>
  );
}
