import { Badge, Tab, Tabs } from '@mui/material';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { PanelPage } from '@/components/panel/panel-page';
import { useQueueCount } from '@/features/driver-signup/api/applications';
import { ApprovalQueue } from '@/features/driver-signup/components/approval-queue';
import { UsersGrid } from '@/features/users/components/users-grid';

export default function UsersScreen() {
  const { t } = useTranslation();
  const [view, setView] = useState<'all' | 'waiting'>('all');
  const waiting = useQueueCount();
  return (
    <PanelPage title="panel.menu.drivers">
      <Tabs value={view} onChange={(_, next: 'all' | 'waiting') => setView(next)} sx={{ mb: 2 }} variant="scrollable" allowScrollButtonsMobile>
        <Tab value="all" label={t('signup.all_drivers')} data-testid="drivers-tab-all" />
        <Tab
          value="waiting"
          data-testid="drivers-tab-waiting"
          label={
            <Badge color="warning" badgeContent={waiting.data ?? 0} max={999} sx={{ '& .MuiBadge-badge': { insetInlineEnd: -14 } }}>
              {t('signup.waiting_tab')}
            </Badge>
          }
        />
      </Tabs>
      {view === 'all' ? <UsersGrid list="drivers" /> : <ApprovalQueue />}
    </PanelPage>
  );
}
