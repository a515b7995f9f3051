import { lazy, Suspense, type ComponentType, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { createBrowserRouter, Navigate, RouterProvider } from 'react-router';
import { MainLayout } from '@/components/layout/main-layout';
import { FullPageSpinner } from '@/components/ui/full-page-spinner';
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

export function createAppRouter() {
  return createBrowserRouter([
    {
      element: <MainLayout />,
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
              <Loading>{lazyRoute(() => import('./routes/bookings'))}</Loading>
            </ProtectedRoute>
          ),
        },
        {
          path: '/profile',
          element: (
            <ProtectedRoute path="/profile">
              <Loading>{lazyRoute(() => import('./routes/profile'))}</Loading>
            </ProtectedRoute>
          ),
        },
        ...panelPaths.map((path) => ({
          path,
          element: (
            <ProtectedRoute path={path}>
              <Loading>{lazyRoute(() => import('./routes/panel'))}</Loading>
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
