import AddIcon from '@mui/icons-material/Add';
import { Button } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink } from 'react-router';
import { PanelPage } from '@/components/panel/panel-page';
import { PanelBookings } from '@/features/trips/components/panel-bookings';
import { useUser } from '@/lib/auth';

export default function BookingsScreen() {
  const { t } = useTranslation();
  const { data: user } = useUser();
  if (!user) return null;
  return (
    <PanelPage
      title="panel.menu.bookings"
      actions={
        user.usertype === 'admin' && (
          <Button variant="contained" startIcon={<AddIcon />} component={RouterLink} to="/addbookings" data-testid="bookings-add">
            {t('panel.menu.addbookings')}
          </Button>
        )
      }
    >
      <PanelBookings role={user.usertype} />
    </PanelPage>
  );
}
