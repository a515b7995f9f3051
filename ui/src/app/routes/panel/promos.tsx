import { PanelPage } from '@/components/panel/panel-page';
import { Promos } from '@/features/catalogue/components/promos';

export default function PromosScreen() {
  return (
    <PanelPage title="panel.menu.promos">
      <Promos />
    </PanelPage>
  );
}
