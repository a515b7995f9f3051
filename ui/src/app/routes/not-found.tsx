import { NotFoundPage } from '@/features/info/components/not-found-page';

export default function NotFoundRoute() {
  return <NotFoundPage />;
}
