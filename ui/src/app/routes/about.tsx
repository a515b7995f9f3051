import { AboutPage } from '@/features/info/components/about-page';

export default function AboutRoute() {
  return <AboutPage />;
}
