import { Box, CircularProgress } from '@mui/material';

export function FullPageSpinner({ label }: { label: string }) {
  return (
    <Box sx={{ minHeight: '100vh', display: 'grid', placeItems: 'center' }} role="status" aria-label={label}>
      <CircularProgress size={48} />
    </Box>
  );
}
