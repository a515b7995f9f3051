import { Stack } from '@mui/material';
import { PanelPage } from '@/components/panel/panel-page';
import { EarningCards } from '@/features/dashboard/components/earning-cards';
import { LiveDriversMap } from '@/features/dashboard/components/live-drivers-map';

export default function DashboardScreen() {
  return (
    <PanelPage title="panel.menu.dashboard">
      <Stack spacing={2}>
        <EarningCards />
        <LiveDriversMap />
      </Stack>
    </PanelPage>
  );
}
