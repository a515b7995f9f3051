import TranslateIcon from '@mui/icons-material/Translate';
import { MenuItem, TextField, type SxProps } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { chooseLanguage, languageOptions } from '@/i18n';
import { useLanguages } from '@/lib/app-data';

export function LanguageSelect({ sx, onChange }: { sx?: SxProps; onChange?: (locale: string) => void }) {
  const { t, i18n } = useTranslation();
  const { data: serverLanguages } = useLanguages();
  const options = languageOptions(serverLanguages);
  const current = options.some((option) => option.langLocale === i18n.language) ? i18n.language : 'en';
  return (
    <TextField
      select
      size="small"
      value={current}
      aria-label={t('header.language')}
      onChange={(event) => {
        void chooseLanguage(event.target.value);
        onChange?.(event.target.value);
      }}
      sx={{ minWidth: 120, '& .MuiInputBase-root': { color: 'inherit' }, '& fieldset': { borderColor: 'currentColor', opacity: 0.5 }, '& svg': { color: 'inherit' }, ...sx }}
      slotProps={{
        select: {
          startAdornment: <TranslateIcon fontSize="small" sx={{ marginInlineEnd: 1 }} />,
          SelectDisplayProps: { 'data-testid': 'language-select', 'aria-label': t('header.language') } as React.HTMLAttributes<HTMLDivElement>,
        },
      }}
    >
      {options.map((option) => (
        <MenuItem key={option.langLocale} value={option.langLocale} lang={option.langLocale} data-testid={`language-${option.langLocale}`}>
          {option.langName}
        </MenuItem>
      ))}
    </TextField>
  );
}
