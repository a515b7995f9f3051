import { PrivacyPage } from '@/features/info/components/privacy-page';

export default function PrivacyRoute() {
  return <PrivacyPage />;
}
