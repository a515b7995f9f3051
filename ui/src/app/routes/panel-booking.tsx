import { useParams } from 'react-router';
import { ChatTranscript } from '@/features/chat/components/chat-panel';
import { BookingPage } from '@/features/trips/components/booking-page';
import { useUser } from '@/lib/auth';
import { CHAT_READERS } from '@/lib/authorization';

/** Issue #34: a booking's own page in the panel (`/bookings/:id/manage`),
 * with its chat from the chat feature, for those the server lets read it:
 * features meet here. */
export default function BookingPageRoute() {
  const { id = '' } = useParams();
  const { data: user } = useUser();
  const readsChat = Boolean(user && CHAT_READERS.includes(user.usertype));
  return (
    <BookingPage
      // A new booking starts the page afresh (its dialogs and refresh marks).
      key={id}
      id={id}
      chat={readsChat ? (booking) => <ChatTranscript bookingId={booking.id} names={{ rider: booking.customer_name ?? '', driver: booking.driver_name ?? '' }} /> : undefined}
    />
  );
}
