import FacebookIcon from '@mui/icons-material/Facebook';
import InstagramIcon from '@mui/icons-material/Instagram';
import XIcon from '@mui/icons-material/X';
import { IconButton, Stack } from '@mui/material';
import { useTranslation } from 'react-i18next';
import type { Settings } from '@/types/api';

function profileUrl(base: string, handle: string) {
  return /^https?:\/\//.test(handle) ? handle : `${base}${handle.replace(/^@/, '')}`;
}

/** The three social handles of settings, each shown only when set. */
export function SocialLinks({ settings, size = 'small' }: { settings: Settings; size?: 'small' | 'medium' }) {
  const { t } = useTranslation();
  const links = [
    { handle: settings.FacebookHandle, url: 'https://facebook.com/', label: t('social.facebook'), icon: <FacebookIcon fontSize={size} /> },
    { handle: settings.TwitterHandle, url: 'https://x.com/', label: t('social.twitter'), icon: <XIcon fontSize={size} /> },
    { handle: settings.InstagramHandle, url: 'https://instagram.com/', label: t('social.instagram'), icon: <InstagramIcon fontSize={size} /> },
  ].filter((link) => link.handle && link.handle.trim() !== '');
  if (links.length === 0) return null;
  return (
    <Stack direction="row" spacing={0.5}>
      {links.map((link) => (
        <IconButton
          key={link.url}
          color="inherit"
          size={size}
          component="a"
          href={profileUrl(link.url, link.handle ?? '')}
          target="_blank"
          rel="noopener noreferrer"
          aria-label={link.label}
        >
          {link.icon}
        </IconButton>
      ))}
    </Stack>
  );
}
