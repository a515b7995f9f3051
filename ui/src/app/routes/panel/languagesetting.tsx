import { PanelPage } from '@/components/panel/panel-page';
import { Languages } from '@/features/languages/components/languages';

export default function LanguagesScreen() {
  return (
    <PanelPage title="panel.menu.languagesetting">
      <Languages />
    </PanelPage>
  );
}
