// A label and its value on one line, for the panel's detail cards (an SOS
// alert, a booking's page), and the left-to-right island that numbers and
// phone numbers need inside a right-to-left line.
import { Stack, Typography } from '@mui/material';
import type { ReactNode } from 'react';

/** Numbers and phone numbers read left to right inside a right-to-left
 * line. An inline style: the right-to-left stylesheet flips `direction` in
 * `sx`. */
export function Ltr({ children }: { children: ReactNode }) {
  return (
    <span dir="ltr" style={{ direction: 'ltr', unicodeBidi: 'isolate', whiteSpace: 'nowrap' }}>
      {children}
    </span>
  );
}

/** `labelWidth`: the labels' column, the same on every line of a card so the values line up. */
export function Line({ label, children, testId, labelWidth = 110 }: { label: string; children: ReactNode; testId?: string; labelWidth?: number }) {
  return (
    <Stack direction="row" spacing={1} data-testid={testId}>
      <Typography variant="body2" color="text.secondary" sx={{ width: labelWidth, flexShrink: 0 }}>
        {label}
      </Typography>
      <Typography variant="body2" component="div" sx={{ minWidth: 0, overflowWrap: 'anywhere' }}>
        {children}
      </Typography>
    </Stack>
  );
}
