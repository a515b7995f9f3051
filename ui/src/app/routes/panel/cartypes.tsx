import { PanelPage } from '@/components/panel/panel-page';
import { CarTypes } from '@/features/cartypes/components/car-types';

export default function CarTypesScreen() {
  return (
    <PanelPage title="panel.menu.cartypes">
      <CarTypes />
    </PanelPage>
  );
}
