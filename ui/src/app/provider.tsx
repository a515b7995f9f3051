import createCache from '@emotion/cache';
import { CacheProvider } from '@emotion/react';
import { CssBaseline, ThemeProvider } from '@mui/material';
import { QueryClientProvider, type QueryClient } from '@tanstack/react-query';
import { Provider as JotaiProvider } from 'jotai';
import { useMemo, useState, type ReactNode } from 'react';
import { I18nextProvider, useTranslation } from 'react-i18next';
import { prefixer } from 'stylis';
import rtlPlugin from 'stylis-plugin-rtl';
import { Notifications } from '@/components/ui/notifications/notifications';
import { directionOf, i18n } from '@/i18n';
import { createQueryClient } from '@/lib/react-query';
import { appStore } from '@/lib/store';
import { createAppTheme } from './theme';

const ltrCache = createCache({ key: 'mui', prepend: true });
const rtlCache = createCache({ key: 'muirtl', prepend: true, stylisPlugins: [prefixer, rtlPlugin] });

/** MUI in the direction of the current language (Arabic right-to-left). */
function DirectionalTheme({ children }: { children: ReactNode }) {
  const { i18n: current } = useTranslation();
  const language = current.language ?? 'en';
  const direction = directionOf(language);
  const theme = useMemo(() => createAppTheme(direction, language), [direction, language]);
  return (
    <CacheProvider value={direction === 'rtl' ? rtlCache : ltrCache}>
      <ThemeProvider theme={theme}>
        <CssBaseline />
        {children}
        <Notifications />
      </ThemeProvider>
    </CacheProvider>
  );
}

export function AppProvider({ children, queryClient }: { children: ReactNode; queryClient?: QueryClient }) {
  const [client] = useState(() => queryClient ?? createQueryClient());
  return (
    <I18nextProvider i18n={i18n}>
      <JotaiProvider store={appStore}>
        <QueryClientProvider client={client}>
          <DirectionalTheme>{children}</DirectionalTheme>
        </QueryClientProvider>
      </JotaiProvider>
    </I18nextProvider>
  );
}
