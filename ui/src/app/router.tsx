import { lazy, Suspense, useState, type ComponentType, type ReactNode } from 'react';
import type { QueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { createBrowserRouter, RouterProvider, useLocation } from 'react-router';
import { MainLayout } from '@/components/layout/main-layout';
import { inPanelShell, isPanelRole } from '@/components/panel/panel-menu';
import { PanelLayout } from '@/components/panel/panel-layout';
import { FullPageSpinner } from '@/components/ui/full-page-spinner';
import { useUser } from '@/lib/auth';
import { BOOKING_PAGE_ROUTE, PROTECTED_ROUTES } from '@/lib/authorization';
import { SosBanner } from '@/features/sos/components/sos-banner';
import { prefetchPanelBookings } from '@/features/trips/api/panel-bookings';
import { ProtectedRoute } from './routes/protected-route';

function lazyRoute(load: () => Promise<{ default: ComponentType }>) {
  const Component = lazy(load);
  return <Component />;
}

function Loading({ children }: { children: ReactNode }) {
  const { t } = useTranslation();
  return <Suspense fallback={<FullPageSpinner label={t('common.loading')} />}>{children}</Suspense>;
}

// Menu screens: /bookings and /profile are drawn below for every role, and a
// page with a parameter (a booking's own page) has a route of its own.
const panelPaths = Object.keys(PROTECTED_ROUTES).filter((path) => path !== '/bookings' && path !== '/profile' && !path.includes(':'));

// One module per panel screen, app/routes/panel/<path>.tsx.
const panelScreens = import.meta.glob<{ default: ComponentType }>('./routes/panel/*.tsx');

/** Screens whose module has arrived: drawn directly, without suspending. */
const loadedScreens = new Map<string, ComponentType>();
const loadingScreens = new Set<string>();

/** The first data of the screens that open on a server query. */
const panelData: Record<string, (client: QueryClient) => Promise<void>> = {
  '/bookings': prefetchPanelBookings,
};

/** Starts loading a panel screen's module (once) and its first data (when
 * not fresh in the cache); its route then renders at once, with its rows. */
function preloadPanelScreen(path: string, client: QueryClient) {
  panelData[path]?.(client).catch(() => undefined);
  const load = panelScreens[`./routes/panel/${path.slice(1)}.tsx`];
  if (!load || loadingScreens.has(path) || loadedScreens.has(path)) return;
  loadingScreens.add(path);
  load()
    .then((module) => loadedScreens.set(path, module.default))
    .catch(() => undefined)
    .finally(() => loadingScreens.delete(path));
}

function panelScreen(path: string) {
  const load = panelScreens[`./routes/panel/${path.slice(1)}.tsx`];
  if (!load) throw new Error(`no screen for ${path}`);
  const Lazy = lazy(load);
  // Chosen once per mount: switching type later would remount the screen.
  function PanelScreen() {
    const [Screen] = useState<ComponentType>(() => loadedScreens.get(path) ?? Lazy);
    return <Screen />;
  }
  return <PanelScreen />;
}

/** Admins and fleet admins work inside the panel's shell; everyone else, and
 * the public pages, inside the site's header and footer. */
function AppShell() {
  const { data: user } = useUser();
  const { pathname } = useLocation();
  return inPanelShell(pathname, user?.usertype) ? <PanelLayout preload={preloadPanelScreen} banner={<SosBanner />} /> : <MainLayout />;
}

const panelBookings = panelScreen('/bookings');
const siteBookings = lazyRoute(() => import('./routes/bookings'));
const panelProfile = panelScreen('/profile');
const siteProfile = lazyRoute(() => import('./routes/profile'));
const bookingPage = lazyRoute(() => import('./routes/panel-booking'));

/** /bookings and /profile are everyone's: admins and fleet admins get the panel's screen. */
function ForPanelRoles({ panel, other }: { panel: ReactNode; other: ReactNode }) {
  const { data: user } = useUser();
  return <>{isPanelRole(user?.usertype) ? panel : other}</>;
}

export function createAppRouter() {
  return createBrowserRouter([
    {
      element: <AppShell />,
      children: [
        { path: '/', element: <Loading>{lazyRoute(() => import('./routes/landing'))}</Loading> },
        { path: '/login', element: <Loading>{lazyRoute(() => import('./routes/login'))}</Loading> },
        { path: '/drive', element: <Loading>{lazyRoute(() => import('./routes/drive'))}</Loading> },
        { path: '/about-us', element: <Loading>{lazyRoute(() => import('./routes/about'))}</Loading> },
        { path: '/privacy-policy', element: <Loading>{lazyRoute(() => import('./routes/privacy'))}</Loading> },
        { path: '/contact-us', element: <Loading>{lazyRoute(() => import('./routes/contact'))}</Loading> },
        {
          path: '/bookings',
          element: (
            <ProtectedRoute path="/bookings">
              <Loading>
                <ForPanelRoles panel={panelBookings} other={siteBookings} />
              </Loading>
            </ProtectedRoute>
          ),
        },
        {
          path: '/profile',
          element: (
            <ProtectedRoute path="/profile">
              <Loading>
                <ForPanelRoles panel={panelProfile} other={siteProfile} />
              </Loading>
            </ProtectedRoute>
          ),
        },
        {
          path: BOOKING_PAGE_ROUTE,
          element: (
            <ProtectedRoute path={BOOKING_PAGE_ROUTE}>
              <Loading>{bookingPage}</Loading>
            </ProtectedRoute>
          ),
        },
        ...panelPaths.map((path) => ({
          path,
          element: (
            <ProtectedRoute path={path}>
              <Loading>{panelScreen(path)}</Loading>
            </ProtectedRoute>
          ),
        })),
        // Any other path, the panel's mistyped ones too: a page that says so.
        { path: '*', element: <Loading>{lazyRoute(() => import('./routes/not-found'))}</Loading> },
      ],
    },
  ]);
}

export function AppRouter() {
  // One router for the life of the page.
  return <RouterProvider router={router} />;
}

const router = createAppRouter();
