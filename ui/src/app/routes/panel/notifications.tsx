import { PanelPage } from '@/components/panel/panel-page';
import { Notifications } from '@/features/catalogue/components/notifications';

export default function NotificationsScreen() {
  return (
    <PanelPage title="panel.menu.notifications">
      <Notifications />
    </PanelPage>
  );
}
