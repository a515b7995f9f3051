import { zodResolver } from '@hookform/resolvers/zod';
import AppleIcon from '@mui/icons-material/Apple';
import FacebookIcon from '@mui/icons-material/Facebook';
import GoogleIcon from '@mui/icons-material/Google';
import LockOutlinedIcon from '@mui/icons-material/LockOutlined';
import {
  Alert,
  Autocomplete,
  Box,
  Button,
  Divider,
  Paper,
  Stack,
  TextField,
  Typography,
} from '@mui/material';
import { useMutation } from '@tanstack/react-query';
import { useMemo, useState, type ReactElement } from 'react';
import { Controller, useForm } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { useLocation, useSearchParams } from 'react-router';
import { errorKey } from '@/lib/api-client';
import { useSettings } from '@/lib/app-data';
import { checkReferral, requestCode, useSignIn } from '@/lib/auth';
import { countries, type Country } from '@/lib/countries';
import type { User } from '@/types/api';
import { CODE_LENGTH, normaliseContact } from '@/lib/sign-in-rules';
import { markSocialSignIn, socialStartUrl, useSocialProviders, type SocialProvider } from '../api/social-sign-in';
import { loginSchema, type LoginValues } from '../lib/login-schema';

const SOCIAL_ICONS: Record<SocialProvider, ReactElement> = {
  google: <GoogleIcon />,
  apple: <AppleIcon />,
  facebook: <FacebookIcon />,
};

/** The sign-in page's `error` (a refused social sign-in), if it is a key we can say. */
function pageError(key: string | null, known: (key: string) => boolean): string | null {
  if (!key) return null;
  return known(key) ? key : 'login_error';
}

export function LoginForm({ onSignedIn }: { onSignedIn: (user: User) => void }) {
  const { t, i18n } = useTranslation();
  const settings = useSettings();
  const countryRequired = Boolean(settings.AllowCountrySelection);
  const countryList = useMemo(() => countries(i18n.language), [i18n.language]);
  const defaultCountry = useMemo(() => {
    const english = countries('en');
    const match = english.find(
      (country) =>
        country.label.toLowerCase() === settings.country?.toLowerCase() ||
        country.code.toLowerCase() === settings.country?.toLowerCase(),
    );
    return match?.code ?? '';
  }, [settings.country]);

  const [searchParams] = useSearchParams();
  const location = useLocation();
  const [serverError, setServerError] = useState<string | null>(() => pageError(searchParams.get('error'), (key) => i18n.exists(key)));
  const socialProviders = useSocialProviders().data ?? [];
  // A social sign-in comes back here: to this page, without the last error.
  const returnTo = useMemo(() => {
    const rest = new URLSearchParams(searchParams);
    rest.delete('error');
    const query = rest.toString();
    return query ? `${location.pathname}?${query}` : location.pathname;
  }, [location.pathname, searchParams]);
  // A first sign-in may carry a friend's referral code, checked before it is sent.
  const [referralOpen, setReferralOpen] = useState(false);
  const [referral, setReferral] = useState('');
  const [referralError, setReferralError] = useState<string | null>(null);
  const form = useForm<LoginValues>({
    resolver: zodResolver(loginSchema(countryRequired)),
    defaultValues: { country: countryRequired ? defaultCountry : '', contact: '', code: '', codeSent: false },
  });
  const codeSent = form.watch('codeSent');
  const countryCode = form.watch('country');
  const dialCode = countryList.find((country) => country.code === countryCode)?.phone;

  const request = useMutation({ mutationFn: requestCode, meta: { handlesErrors: true } });
  const signIn = useSignIn();

  const submit = form.handleSubmit(async (values) => {
    setServerError(null);
    const contact = normaliseContact(values.contact, countryRequired ? dialCode : undefined);
    try {
      if (!values.codeSent) {
        await request.mutateAsync({ contact, country: countryRequired ? values.country : undefined });
        form.setValue('codeSent', true);
        form.setValue('code', '');
      } else {
        const referralId = referral.trim().toUpperCase();
        if (referralId) {
          try {
            await checkReferral(referralId);
          } catch (error) {
            setReferralError(errorKey(error));
            return;
          }
        }
        const signedIn = await signIn.mutateAsync({ contact, code: values.code.trim(), referralId: referralId || undefined });
        onSignedIn(signedIn.user);
      }
    } catch (error) {
      setServerError(errorKey(error));
    }
  });

  const cancel = () => {
    // Spec §4 Login: cancel clears the contact and the code.
    form.reset({ country: form.getValues('country'), contact: '', code: '', codeSent: false });
    setServerError(null);
    setReferral('');
    setReferralError(null);
    setReferralOpen(false);
  };

  const fieldError = (name: keyof LoginValues) => {
    const message = form.formState.errors[name]?.message;
    return message ? t(message) : undefined;
  };

  const busy = request.isPending || signIn.isPending;

  return (
    <Paper elevation={3} sx={{ p: { xs: 3, sm: 5 }, maxWidth: 460, mx: 'auto' }}>
      <Stack spacing={1} alignItems="center" sx={{ mb: 3 }}>
        <Box sx={{ bgcolor: 'primary.main', color: 'primary.contrastText', borderRadius: '50%', p: 1.5, display: 'flex' }}>
          <LockOutlinedIcon />
        </Box>
        <Typography variant="h5" component="h1" fontWeight={700}>
          {t('login.title')}
        </Typography>
        <Typography variant="body2" color="text.secondary" textAlign="center">
          {codeSent ? t('login.code_sent_hint') : t('login.subtitle')}
        </Typography>
      </Stack>
      <Box component="form" noValidate onSubmit={submit}>
        <Stack spacing={2}>
          {serverError && (
            <Alert severity="error" onClose={() => setServerError(null)} data-testid="login-error">
              {t(serverError)}
            </Alert>
          )}
          {countryRequired && (
            <Controller
              control={form.control}
              name="country"
              render={({ field }) => (
                <Autocomplete<Country>
                  options={countryList}
                  value={countryList.find((country) => country.code === field.value) ?? null}
                  onChange={(_, country) => field.onChange(country?.code ?? '')}
                  getOptionLabel={(country) => `${country.label} (${country.phone})`}
                  isOptionEqualToValue={(a, b) => a.code === b.code}
                  disabled={codeSent}
                  renderInput={(params) => (
                    <TextField
                      {...params}
                      label={t('login.country')}
                      error={Boolean(form.formState.errors.country)}
                      helperText={fieldError('country')}
                    />
                  )}
                />
              )}
            />
          )}
          <TextField
            label={t('login.contact')}
            placeholder={t('login.contact_placeholder')}
            autoComplete="username"
            autoFocus
            {...form.register('contact')}
            disabled={codeSent}
            error={Boolean(form.formState.errors.contact)}
            helperText={fieldError('contact')}
            slotProps={{ htmlInput: { 'data-testid': 'login-contact' } }}
          />
          {codeSent && (
            <TextField
              label={t('login.code')}
              autoComplete="one-time-code"
              autoFocus
              {...form.register('code')}
              error={Boolean(form.formState.errors.code)}
              helperText={fieldError('code') ?? t('login.code_help', { count: CODE_LENGTH })}
              slotProps={{ htmlInput: { inputMode: 'numeric', maxLength: CODE_LENGTH, 'data-testid': 'login-code' } }}
            />
          )}
          {codeSent &&
            (referralOpen ? (
              <TextField
                label={t('login.referral')}
                value={referral}
                onChange={(event) => {
                  setReferral(event.target.value.toUpperCase());
                  setReferralError(null);
                }}
                error={Boolean(referralError)}
                helperText={referralError ? t(referralError) : t('login.referral_help')}
                slotProps={{ htmlInput: { maxLength: 16, dir: 'ltr', autoCapitalize: 'characters', 'data-testid': 'login-referral' } }}
              />
            ) : (
              <Button type="button" size="small" onClick={() => setReferralOpen(true)} sx={{ alignSelf: 'flex-start' }} data-testid="login-referral-open">
                {t('login.referral_open')}
              </Button>
            ))}
          {codeSent ? (
            <Stack direction="row" spacing={1}>
              <Button type="button" variant="outlined" fullWidth onClick={cancel} disabled={busy} data-testid="login-cancel">
                {t('common.cancel')}
              </Button>
              <Button type="submit" variant="contained" fullWidth disabled={busy} data-testid="login-verify">
                {signIn.isPending ? t('login.verifying') : t('login.verify')}
              </Button>
            </Stack>
          ) : (
            <Button type="submit" variant="contained" size="large" disabled={busy} data-testid="login-request">
              {request.isPending ? t('login.sending') : t('login.request_code')}
            </Button>
          )}
          {socialProviders.length > 0 && (
            <>
              <Divider>{t('login.or')}</Divider>
              {socialProviders.map((provider) => (
                <Button
                  key={provider}
                  variant="outlined"
                  startIcon={SOCIAL_ICONS[provider]}
                  href={socialStartUrl(provider, returnTo)}
                  onClick={markSocialSignIn}
                  data-testid={`login-social-${provider}`}
                >
                  {t(`login.social_${provider}`)}
                </Button>
              ))}
            </>
          )}
        </Stack>
      </Box>
    </Paper>
  );
}
