// The service worker (public/sw.js) keeps the app's shell for the installed
// app and carries Web Push. It is registered once the page has loaded, in
// the built app only: the dev server's modules are not a shell to keep.
import { SERVICE_WORKER_URL } from './web-push';

export function registerServiceWorker(environment: { production: boolean } = { production: import.meta.env.PROD }) {
  if (!environment.production || typeof window === 'undefined' || !('serviceWorker' in navigator)) return false;
  const register = () => {
    navigator.serviceWorker.register(SERVICE_WORKER_URL).catch((error: unknown) => {
      console.warn('service worker not registered:', error);
    });
  };
  if (document.readyState === 'complete') register();
  else window.addEventListener('load', register, { once: true });
  return true;
}
