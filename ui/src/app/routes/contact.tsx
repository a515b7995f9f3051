import { ContactPage } from '@/features/info/components/contact-page';

export default function ContactRoute() {
  return <ContactPage />;
}
