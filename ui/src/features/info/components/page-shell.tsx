import { Box, Container, Paper, Typography } from '@mui/material';
import type { ReactNode } from 'react';

export function PageShell({ title, children, testId }: { title: string; children: ReactNode; testId?: string }) {
  return (
    <Box sx={{ py: { xs: 4, md: 8 }, bgcolor: 'background.default' }} data-testid={testId}>
      <Container maxWidth="md">
        <Typography variant="h3" component="h1" sx={{ mb: 3, fontSize: { xs: '2rem', md: '2.6rem' } }}>
          {title}
        </Typography>
        <Paper variant="outlined" sx={{ p: { xs: 3, md: 5 } }}>
          {children}
        </Paper>
      </Container>
    </Box>
  );
}
