import { PanelPage } from '@/components/panel/panel-page';
import { SosScreen } from '@/features/sos/components/sos-screen';

export default function SosRoute() {
  return (
    <PanelPage title="panel.menu.sos">
      <SosScreen />
    </PanelPage>
  );
}
