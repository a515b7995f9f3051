import { useParams } from 'react-router';
import { ChatTranscript } from '@/features/chat/components/chat-panel';
import { BookingPage } from '@/features/trips/components/booking-page';

/** Issue #34: a booking's own page in the panel (`/bookings/:id/manage`),
 * with its chat from the chat feature: features meet here. */
export default function BookingPageRoute() {
  const { id = '' } = useParams();
  return (
    <BookingPage
      // A new booking starts the page afresh (its dialogs and refresh marks).
      key={id}
      id={id}
      chat={(booking) => <ChatTranscript bookingId={booking.id} names={{ rider: booking.customer_name, driver: booking.driver_name }} />}
    />
  );
}
