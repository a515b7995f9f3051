import { PanelPage } from '@/components/panel/panel-page';
import { UsersGrid } from '@/features/users/components/users-grid';

export default function UsersScreen() {
  return (
    <PanelPage title="panel.menu.fleetadmins">
      <UsersGrid list="fleetadmins" />
    </PanelPage>
  );
}
