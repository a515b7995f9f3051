import { PanelPage } from '@/components/panel/panel-page';
import { SettingsForm } from '@/features/settings/components/settings-form';
import { SETTINGS_SECTIONS } from '@/features/settings/lib/settings-fields';

export default function SettingsScreen() {
  return (
    <PanelPage title="panel.menu.settings">
      <SettingsForm sections={SETTINGS_SECTIONS} path="/settings" testId="settings-form" />
    </PanelPage>
  );
}
