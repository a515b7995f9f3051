import { useEffect } from 'react';

/** Keeps the screen on while `active` (Screen Wake Lock): an online driver's
 * phone sits on the dashboard and must not go dark before an offer. The
 * browser drops the lock when the page is hidden; it is taken again on return. */
export function useWakeLock(active: boolean) {
  useEffect(() => {
    if (!active || typeof navigator === 'undefined' || !('wakeLock' in navigator)) return;
    let sentinel: WakeLockSentinel | null = null;
    let released = false;
    const take = () => {
      if (released || document.visibilityState !== 'visible' || (sentinel && !sentinel.released)) return;
      navigator.wakeLock
        .request('screen')
        .then((lock) => {
          if (released) void lock.release();
          else sentinel = lock;
        })
        .catch(() => {
          // Refused (battery saver, no user gesture yet): the screen may dim, nothing else changes.
        });
    };
    take();
    document.addEventListener('visibilitychange', take);
    return () => {
      released = true;
      document.removeEventListener('visibilitychange', take);
      void sentinel?.release().catch(() => {});
    };
  }, [active]);
}
