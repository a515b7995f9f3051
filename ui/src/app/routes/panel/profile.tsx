import { PanelPage } from '@/components/panel/panel-page';
import { ProfileForm } from '@/features/profile/components/profile-form';
import { useUser } from '@/lib/auth';

export default function Screen() {
  const { data: user } = useUser();
  if (!user) return null;
  return (
    <PanelPage title="profile.title">
      <ProfileForm key={user.id} user={user} />
    </PanelPage>
  );
}
