import { zodResolver } from '@hookform/resolvers/zod';
import PhotoCameraIcon from '@mui/icons-material/PhotoCamera';
import {
  Alert,
  Avatar,
  Badge,
  Box,
  Button,
  Card,
  CardContent,
  CircularProgress,
  IconButton,
  MenuItem,
  Stack,
  TextField,
  Typography,
} from '@mui/material';
import { useState } from 'react';
import { Controller, useForm } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { AlertDialog } from '@/components/ui/alert-dialog';
import { chooseLanguage, languageOptions } from '@/i18n';
import { errorKey } from '@/lib/api-client';
import { useLanguages, useSettings } from '@/lib/app-data';
import type { User } from '@/types/api';
import { useUpdateProfile, useUploadUserImage } from '../api/profile';
import { emailLocked, phoneLocked, profileSchema, showsBankFields, type ProfileValues } from '../lib/profile-rules';
import { LicenceUpload } from './licence-upload';

type Message = { severity: 'success' | 'error' | 'info'; key: string };

function missingRoute(key: string) {
  return key === 'not_found';
}

export function ProfileForm({ user }: { user: User }) {
  const { t, i18n } = useTranslation();
  const navigate = useNavigate();
  const { data: serverLanguages } = useLanguages();
  const languages = languageOptions(serverLanguages);
  const settings = useSettings();
  const bankFields = showsBankFields(user, settings);
  const update = useUpdateProfile();
  const photo = useUploadUserImage('profile-image');
  const [message, setMessage] = useState<Message | null>(null);
  const [confirmPhone, setConfirmPhone] = useState<ProfileValues | null>(null);

  const form = useForm<ProfileValues>({
    resolver: zodResolver(profileSchema),
    defaultValues: {
      firstName: user.firstName,
      lastName: user.lastName,
      email: user.email,
      mobile: user.mobile,
      langLocale: user.lang?.langLocale ?? i18n.language,
      bankName: user.bankName ?? '',
      bankCode: user.bankCode ?? '',
      bankAccount: user.bankAccount ?? '',
    },
  });

  const save = (values: ProfileValues) => {
    setMessage(null);
    const language = languages.find((option) => option.langLocale === values.langLocale);
    update.mutate(
      {
        firstName: values.firstName.trim(),
        lastName: values.lastName.trim(),
        email: emailLocked(user.regType) ? undefined : values.email.trim(),
        mobile: phoneLocked(user.regType) ? undefined : values.mobile.trim(),
        lang: language ? { langLocale: language.langLocale, dateLocale: language.dateLocale } : undefined,
        ...(bankFields ? { bankName: values.bankName.trim(), bankCode: values.bankCode.trim(), bankAccount: values.bankAccount.trim() } : {}),
      },
      {
        onSuccess: () => {
          setMessage({ severity: 'success', key: 'profile_updated' });
          if (language && language.langLocale !== i18n.language) void chooseLanguage(language.langLocale);
        },
        onError: (error) => {
          const key = errorKey(error);
          setMessage({ severity: 'error', key: missingRoute(key) ? 'profile.update_unavailable' : key });
        },
      },
    );
  };

  const submit = form.handleSubmit((values) => {
    // Spec §5 Profile: changing the phone asks first ('phone_no_update').
    if (!phoneLocked(user.regType) && values.mobile.trim() !== user.mobile) {
      setConfirmPhone(values);
      return;
    }
    save(values);
  });

  const upload = (file: File | undefined) => {
    if (!file) {
      setMessage({ severity: 'error', key: 'choose_image_first' });
      return;
    }
    photo.mutate(file, {
      onSuccess: () => setMessage({ severity: 'success', key: 'profile_updated' }),
      onError: (error) => {
        const key = errorKey(error);
        setMessage({ severity: 'error', key: missingRoute(key) ? 'uploads_unavailable' : key });
      },
    });
  };

  const error = (name: keyof ProfileValues) => {
    const text = form.formState.errors[name]?.message;
    return text ? t(text) : undefined;
  };

  return (
    <Card variant="outlined" data-testid="profile-form">
      <CardContent sx={{ p: { xs: 2, md: 4 } }}>
        <Stack direction={{ xs: 'column', sm: 'row' }} spacing={3} alignItems={{ sm: 'center' }} sx={{ mb: 3 }}>
          <Badge
            overlap="circular"
            anchorOrigin={{ vertical: 'bottom', horizontal: 'right' }}
            badgeContent={
              <IconButton component="label" size="small" sx={{ bgcolor: 'secondary.main', '&:hover': { bgcolor: 'secondary.light' } }} aria-label={t('profile.change_photo')}>
                {photo.isPending ? <CircularProgress size={16} /> : <PhotoCameraIcon fontSize="small" />}
                <input hidden type="file" accept="image/*" onChange={(event) => upload(event.target.files?.[0])} data-testid="profile-photo-input" />
              </IconButton>
            }
          >
            <Avatar
              src={user.profile_image ?? undefined}
              alt={t('profile.photo')}
              slotProps={{ img: { 'data-testid': 'profile-photo' } as React.ImgHTMLAttributes<HTMLImageElement> }}
              sx={{ width: 96, height: 96, fontSize: 36, bgcolor: 'primary.main' }}
            >
              {(user.firstName || user.email || '?').charAt(0).toUpperCase()}
            </Avatar>
          </Badge>
          <Box>
            <Typography variant="h5" fontWeight={700} data-testid="profile-name">
              {[user.firstName, user.lastName].filter(Boolean).join(' ') || t('profile.no_name')}
            </Typography>
            <Typography color="text.secondary">{t(`usertype.${user.usertype}`)}</Typography>
            {user.referralId && (
              <Typography variant="body2" color="text.secondary">
                {t('profile.referral', { code: user.referralId })}
              </Typography>
            )}
          </Box>
        </Stack>
        {message && (
          <Alert severity={message.severity} sx={{ mb: 2 }} onClose={() => setMessage(null)} data-testid="profile-message">
            {t(message.key)}
          </Alert>
        )}
        <Box component="form" noValidate onSubmit={submit}>
          <Stack spacing={2}>
            <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2}>
              <TextField fullWidth label={t('profile.first_name')} {...form.register('firstName')} error={Boolean(error('firstName'))} helperText={error('firstName')} slotProps={{ htmlInput: { 'data-testid': 'profile-first-name' } }} />
              <TextField fullWidth label={t('profile.last_name')} {...form.register('lastName')} error={Boolean(error('lastName'))} helperText={error('lastName')} slotProps={{ htmlInput: { 'data-testid': 'profile-last-name' } }} />
            </Stack>
            <TextField
              label={t('profile.email')}
              {...form.register('email')}
              disabled={emailLocked(user.regType)}
              error={Boolean(error('email'))}
              helperText={error('email') ?? (emailLocked(user.regType) ? t('profile.locked') : undefined)}
              slotProps={{ htmlInput: { 'data-testid': 'profile-email' } }}
            />
            <TextField
              label={t('profile.mobile')}
              {...form.register('mobile')}
              disabled={phoneLocked(user.regType)}
              helperText={phoneLocked(user.regType) ? t('profile.locked') : undefined}
              slotProps={{ htmlInput: { 'data-testid': 'profile-mobile', dir: 'ltr' } }}
            />
            <TextField
              label={t('profile.user_type')}
              value={t(`usertype.${user.usertype}`)}
              disabled
              slotProps={{ htmlInput: { readOnly: true, 'data-testid': 'profile-user-type' } }}
            />
            <Controller
              control={form.control}
              name="langLocale"
              render={({ field }) => (
                <TextField
                  select
                  label={t('profile.language')}
                  value={field.value}
                  onChange={field.onChange}
                  slotProps={{ select: { SelectDisplayProps: { 'data-testid': 'profile-language' } as React.HTMLAttributes<HTMLDivElement> } }}
                >
                  {languages.map((language) => (
                    <MenuItem key={language.langLocale} value={language.langLocale} data-testid={`profile-language-${language.langLocale}`}>
                      {language.langName}
                    </MenuItem>
                  ))}
                </TextField>
              )}
            />
            {bankFields &&
              (['bankName', 'bankCode', 'bankAccount'] as const).map((name) => (
                <TextField
                  key={name}
                  label={t(`profile.${name}`)}
                  {...form.register(name)}
                  error={Boolean(error(name))}
                  helperText={error(name) ?? (name === 'bankName' ? t('profile.bank_help') : undefined)}
                  slotProps={{ htmlInput: { 'data-testid': `profile-${name}`, dir: name === 'bankName' ? undefined : 'ltr', maxLength: 64 } }}
                />
              ))}
            {user.usertype === 'driver' && <LicenceUpload user={user} />}
            <Box>
              <Button type="submit" variant="contained" size="large" disabled={update.isPending} data-testid="profile-submit">
                {update.isPending ? t('common.saving') : t('profile.submit')}
              </Button>
            </Box>
          </Stack>
        </Box>
      </CardContent>
      <AlertDialog
        open={confirmPhone !== null}
        message={t('phone_no_update')}
        onClose={() => setConfirmPhone(null)}
        onConfirm={() => {
          const values = confirmPhone;
          setConfirmPhone(null);
          if (values) save(values);
          navigate('/profile');
        }}
      />
    </Card>
  );
}
