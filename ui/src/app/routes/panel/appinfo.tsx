import { PanelPage } from '@/components/panel/panel-page';
import { SettingsForm } from '@/features/settings/components/settings-form';
import { APP_INFO_SECTIONS } from '@/features/settings/lib/settings-fields';

export default function AppInfoScreen() {
  return (
    <PanelPage title="panel.menu.appinfo">
      <SettingsForm sections={APP_INFO_SECTIONS} path="/appinfo" testId="appinfo-form" />
    </PanelPage>
  );
}
