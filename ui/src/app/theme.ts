import { arSA, enUS } from '@mui/material/locale';
import { createTheme } from '@mui/material/styles';

/** The theme in a direction, with MUI's own texts (clear, open, rows…) in the language. */
export function createAppTheme(direction: 'ltr' | 'rtl', language = 'en') {
  return createTheme(
    {
    direction,
    palette: {
      primary: { main: '#0b5c56', dark: '#073f3b', light: '#3f8a83', contrastText: '#ffffff' },
      secondary: { main: '#f2a93b', contrastText: '#1d1d1d' },
      background: { default: '#f6f7f5', paper: '#ffffff' },
    },
    shape: { borderRadius: 10 },
    typography: {
      fontFamily: direction === 'rtl'
        ? '"Noto Sans Arabic", "Segoe UI", Tahoma, "DejaVu Sans", sans-serif'
        : '"Inter", "Segoe UI", Roboto, "Helvetica Neue", "DejaVu Sans", Arial, sans-serif',
      h1: { fontWeight: 800 },
      h2: { fontWeight: 800 },
      h3: { fontWeight: 700 },
      h4: { fontWeight: 700 },
      button: { textTransform: 'none', fontWeight: 600 },
    },
    components: {
      MuiButton: { defaultProps: { disableElevation: true } },
      MuiPaper: { styleOverrides: { rounded: { borderRadius: 14 } } },
    },
    },
    language.startsWith('ar') ? arSA : enUS,
  );
}
