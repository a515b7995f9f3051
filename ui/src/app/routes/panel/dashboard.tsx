import { Stack } from '@mui/material';
import { PanelPage } from '@/components/panel/panel-page';
import { EarningCards } from '@/features/dashboard/components/earning-cards';
import { LiveDriversMap } from '@/features/dashboard/components/live-drivers-map';
import { UnassignedCard } from '@/features/dashboard/components/unassigned-card';

export default function DashboardScreen() {
  return (
    <PanelPage title="panel.menu.dashboard">
      <Stack spacing={2}>
        <UnassignedCard />
        <EarningCards />
        <LiveDriversMap />
      </Stack>
    </PanelPage>
  );
}
