import { lazy, Suspense, type ComponentType, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { createBrowserRouter, Navigate, RouterProvider, useLocation } from 'react-router';
import { MainLayout } from '@/components/layout/main-layout';
import { inPanelShell, isPanelRole } from '@/components/panel/panel-menu';
import { PanelLayout } from '@/components/panel/panel-layout';
import { FullPageSpinner } from '@/components/ui/full-page-spinner';
import { useUser } from '@/lib/auth';
import { PROTECTED_ROUTES } from '@/lib/authorization';
import { ProtectedRoute } from './routes/protected-route';

function lazyRoute(load: () => Promise<{ default: ComponentType }>) {
  const Component = lazy(load);
  return <Component />;
}

function Loading({ children }: { children: ReactNode }) {
  const { t } = useTranslation();
  return <Suspense fallback={<FullPageSpinner label={t('common.loading')} />}>{children}</Suspense>;
}

const panelPaths = Object.keys(PROTECTED_ROUTES).filter((path) => path !== '/bookings' && path !== '/profile');

// One module per panel screen, app/routes/panel/<path>.tsx.
const panelScreens = import.meta.glob<{ default: ComponentType }>('./routes/panel/*.tsx');

const preloaded = new Set<string>();

/** Starts loading a panel screen's module (once); its route then renders at once. */
function preloadPanelScreen(path: string) {
  const load = panelScreens[`./routes/panel/${path.slice(1)}.tsx`];
  if (!load || preloaded.has(path)) return;
  preloaded.add(path);
  load().catch(() => preloaded.delete(path));
}

function panelScreen(path: string) {
  const load = panelScreens[`./routes/panel/${path.slice(1)}.tsx`];
  if (!load) throw new Error(`no screen for ${path}`);
  return lazyRoute(load);
}

/** Admins and fleet admins work inside the panel's shell; everyone else, and
 * the public pages, inside the site's header and footer. */
function AppShell() {
  const { data: user } = useUser();
  const { pathname } = useLocation();
  return inPanelShell(pathname, user?.usertype) ? <PanelLayout preload={preloadPanelScreen} /> : <MainLayout />;
}

const panelBookings = panelScreen('/bookings');
const siteBookings = lazyRoute(() => import('./routes/bookings'));
const panelProfile = panelScreen('/profile');
const siteProfile = lazyRoute(() => import('./routes/profile'));

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
        ...panelPaths.map((path) => ({
          path,
          element: (
            <ProtectedRoute path={path}>
              <Loading>{panelScreen(path)}</Loading>
            </ProtectedRoute>
          ),
        })),
        { path: '*', element: <Navigate to="/login" replace /> },
      ],
    },
  ]);
}

export function AppRouter() {
  // One router for the life of the page.
  return <RouterProvider router={router} />;
}

const router = createAppRouter();
