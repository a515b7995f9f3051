import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from '@/app';
import { initI18n } from '@/i18n';
import { registerServiceWorker } from '@/lib/service-worker';
import './styles.css';

initI18n();
registerServiceWorker();

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
