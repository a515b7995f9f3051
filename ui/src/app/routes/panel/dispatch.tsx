import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { PanelPage } from '@/components/panel/panel-page';
import { notify } from '@/components/ui/notifications/notifications-store';
import type { ConsoleActions } from '@/features/dispatch/components/booking-drawer';
import { DispatchConsole } from '@/features/dispatch/components/dispatch-console';
import { useCancelBooking } from '@/features/trips/api/bookings';
import { AssignDriverDialog } from '@/features/trips/components/assign-driver-dialog';
import { CancelDialog } from '@/features/trips/components/cancel-dialog';
import { canAssign, canCancel } from '@/features/trips/lib/booking-status';
import { useUser } from '@/lib/auth';
import { useCriticalEditsAllowed } from '@/lib/critical-edits';
import { errorText } from '@/lib/server-errors';
import type { Booking } from '@/types/api';

/** The bookings screen's cancel dialog, cancelling with the reason chosen;
 * a refusal is a toast, as on the bookings screen. */
function ConsoleCancel({ booking, onClose }: { booking: Booking; onClose: () => void }) {
  const { t, i18n } = useTranslation();
  const cancel = useCancelBooking();
  return (
    <CancelDialog
      open
      busy={cancel.isPending}
      error={null}
      onClose={onClose}
      onConfirm={(reason) =>
        cancel.mutate(
          { id: booking.id, reason },
          {
            onSuccess: onClose,
            onError: (error) => notify({ severity: 'error', message: errorText(error, t, (key) => i18n.exists(key)), translated: true }),
          },
        )
      }
    />
  );
}

/** Issue #15: the live dispatch console. The console is its own feature; the
 * bookings screen's assign and cancel dialogs and rules are wired in here,
 * where features meet. A link may open it on one booking, replaying its trip. */
export default function DispatchScreen() {
  const { data: user } = useUser();
  // Issue #34: a booking's page opens its replay here (`?booking=…&replay=1`).
  const [params] = useSearchParams();
  const opened = params.get('booking');
  const criticalEdits = useCriticalEditsAllowed();
  if (!user) return null;
  const actions: ConsoleActions = {
    canAssign: (booking) => canAssign(booking, user.usertype),
    canCancel: (booking) => canCancel(booking, user.usertype, criticalEdits),
    assignDialog: (booking, close) => <AssignDriverDialog booking={booking} onClose={close} />,
    cancelDialog: (booking, close) => <ConsoleCancel booking={booking} onClose={close} />,
  };
  return (
    <PanelPage title="panel.menu.dispatch">
      <DispatchConsole
        isAdmin={user.usertype === 'admin'}
        actions={actions}
        initialFocus={opened ? { booking: opened, replay: params.get('replay') === '1' } : undefined}
      />
    </PanelPage>
  );
}
