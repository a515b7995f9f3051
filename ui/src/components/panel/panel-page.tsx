import { Box, Stack, Typography } from '@mui/material';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

/** A panel screen: its title (a translation key, with its values), the
 * buttons that act on the whole screen, and the content. */
export function PanelPage({
  title,
  titleValues,
  actions,
  children,
}: {
  title: string;
  titleValues?: Record<string, unknown>;
  actions?: ReactNode;
  children: ReactNode;
}) {
  const { t } = useTranslation();
  return (
    <Box data-testid="panel-page">
      <Stack direction="row" spacing={2} useFlexGap sx={{ mb: 2, alignItems: 'center', flexWrap: 'wrap' }}>
        <Typography variant="h5" component="h1" fontWeight={700} sx={{ flexGrow: 1 }}>
          {t(title, titleValues)}
        </Typography>
        {actions}
      </Stack>
      {children}
    </Box>
  );
}
