import type { ReactNode } from 'react';
import { Navigate, useLocation } from 'react-router';
import { useUser } from '@/lib/auth';
import { canAccess } from '@/lib/authorization';

/** Spec §2: a protected route carries an allow-list of user types; any other
 * visitor is redirected to /login. */
export function ProtectedRoute({ path, children }: { path: string; children: ReactNode }) {
  const { data: user } = useUser();
  const location = useLocation();
  if (!canAccess(path, user?.usertype)) {
    return <Navigate to="/login" replace state={{ from: location.pathname, denied: Boolean(user) }} />;
  }
  return <>{children}</>;
}
