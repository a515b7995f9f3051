import { Box } from '@mui/material';
import { useState } from 'react';
import { PanelPage } from '@/components/panel/panel-page';
import { UserPicker } from '@/components/panel/user-picker';
import { BookingForm } from '@/features/booking/components/booking-form';
import type { User } from '@/types/api';

/** Spec §4 "Add booking flow": the admin books for a rider they choose. */
export default function AddBookingScreen() {
  const [rider, setRider] = useState<User | null>(null);
  return (
    <PanelPage title="panel.menu.addbookings">
      <Box sx={{ maxWidth: 640 }}>
        <BookingForm
          forRider={{
            rider,
            picker: <UserPicker label="panel.addbooking.rider" roles={['rider']} value={rider} onChange={setRider} testId="rider-picker" />,
          }}
        />
      </Box>
    </PanelPage>
  );
}
