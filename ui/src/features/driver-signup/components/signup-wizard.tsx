// "Drive with us" (issue #33): the sign-up, step by step, made for a phone.
// 1) the contact and its one-time code, as at sign-in; 2) who the driver is
// and the vehicle, which signs them up; 3) one card per required document;
// 4) waiting for approval.
import { zodResolver } from '@hookform/resolvers/zod';
import { Alert, Autocomplete, Box, Button, MenuItem, Paper, Stack, Step, StepLabel, Stepper, TextField, Typography } from '@mui/material';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { useForm } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { CODE_LENGTH, codeError, contactError, normaliseContact } from '@/lib/sign-in-rules';
import { isApiError, setBearerToken } from '@/lib/api-client';
import { useCarTypes, useSettings } from '@/lib/app-data';
import { requestCode, useUser } from '@/lib/auth';
import { countries, type Country } from '@/lib/countries';
import { queryKeys } from '@/lib/query-keys';
import { setSessionMarker } from '@/lib/session-marker';
import type { User } from '@/types/api';
import { signUp, useMyApplication } from '../api/applications';
import { modelYears, requiredKinds } from '../lib/documents';
import { detailsSchema, emptyDetails, type DetailsValues } from '../lib/signup-schema';
import { ApplicationView } from './application-view';
import { DocumentCard } from './document-card';

const STEPS = ['signup.step.contact', 'signup.step.details', 'signup.step.documents', 'signup.step.waiting'] as const;

function ContactStep({ onVerified }: { onVerified: (contact: string, code: string) => void }) {
  const { t, i18n } = useTranslation();
  const settings = useSettings();
  const countryRequired = Boolean(settings.AllowCountrySelection);
  const countryList = useMemo(() => countries(i18n.language), [i18n.language]);
  const [country, setCountry] = useState('');
  const [contact, setContact] = useState('');
  const [code, setCode] = useState('');
  const [sent, setSent] = useState(false);
  const [error, setError] = useState<{ field: 'contact' | 'code' | 'form'; key: string } | null>(null);
  const request = useMutation({ mutationFn: requestCode, meta: { handlesErrors: true } });
  const dialCode = countryList.find((entry) => entry.code === country)?.phone;
  const normalised = normaliseContact(contact, countryRequired ? dialCode : undefined);

  const submit = async (event: React.FormEvent) => {
    event.preventDefault();
    setError(null);
    if (countryRequired && !country) return setError({ field: 'form', key: 'country_blank_error' });
    const contactProblem = contactError(contact);
    if (contactProblem) return setError({ field: 'contact', key: contactProblem });
    if (!sent) {
      try {
        await request.mutateAsync({ contact: normalised, country: countryRequired ? country : undefined });
        setSent(true);
      } catch (failure) {
        setError({ field: 'form', key: isApiError(failure) ? failure.code : 'internal_error' });
      }
      return;
    }
    const codeProblem = codeError(code);
    if (codeProblem) return setError({ field: 'code', key: codeProblem });
    // The code is checked by the sign-up itself, with the details.
    onVerified(normalised, code.trim());
  };

  return (
    <Box component="form" noValidate onSubmit={submit}>
      <Stack spacing={2}>
        <Typography variant="body2" color="text.secondary">
          {sent ? t('login.code_sent_hint') : t('signup.contact_hint')}
        </Typography>
        {error?.field === 'form' && <Alert severity="error">{t(error.key)}</Alert>}
        {countryRequired && (
          <Autocomplete<Country>
            options={countryList}
            value={countryList.find((entry) => entry.code === country) ?? null}
            onChange={(_, chosen) => setCountry(chosen?.code ?? '')}
            getOptionLabel={(entry) => `${entry.label} (${entry.phone})`}
            disabled={sent}
            renderInput={(params) => <TextField {...params} label={t('login.country')} />}
          />
        )}
        <TextField
          label={t('login.contact')}
          placeholder={t('login.contact_placeholder')}
          autoComplete="username"
          value={contact}
          onChange={(event) => setContact(event.target.value)}
          disabled={sent}
          error={error?.field === 'contact'}
          helperText={error?.field === 'contact' ? t(error.key) : undefined}
          slotProps={{ htmlInput: { dir: 'ltr', 'data-testid': 'signup-contact' } }}
        />
        {sent && (
          <TextField
            label={t('login.code')}
            autoComplete="one-time-code"
            autoFocus
            value={code}
            onChange={(event) => setCode(event.target.value)}
            error={error?.field === 'code'}
            helperText={error?.field === 'code' ? t(error.key) : t('login.code_help', { count: CODE_LENGTH })}
            slotProps={{ htmlInput: { inputMode: 'numeric', maxLength: CODE_LENGTH, dir: 'ltr', 'data-testid': 'signup-code' } }}
          />
        )}
        <Stack direction="row" spacing={1}>
          {sent && (
            <Button variant="outlined" fullWidth onClick={() => { setSent(false); setCode(''); }}>
              {t('common.cancel')}
            </Button>
          )}
          <Button type="submit" variant="contained" size="large" fullWidth disabled={request.isPending} data-testid="signup-contact-next">
            {sent ? t('signup.next') : request.isPending ? t('login.sending') : t('login.request_code')}
          </Button>
        </Stack>
      </Stack>
    </Box>
  );
}

const DETAIL_FIELDS = ['firstName', 'lastName', 'email', 'vehicleMake', 'vehicleModel', 'vehicleNumber', 'vehicleColor'] as const;

function DetailsStep({ contact, code, onSignedUp, onBack }: { contact: string; code: string; onSignedUp: (user: User) => void; onBack: (key: string) => void }) {
  const { t } = useTranslation();
  const carTypes = useCarTypes();
  const client = useQueryClient();
  const now = useMemo(() => new Date(), []);
  const years = useMemo(() => modelYears(now), [now]);
  const [serverError, setServerError] = useState<string | null>(null);
  const form = useForm<DetailsValues>({ resolver: zodResolver(detailsSchema(now)), defaultValues: emptyDetails });
  const mutation = useMutation({ mutationFn: signUp, meta: { handlesErrors: true } });

  const submit = form.handleSubmit(async (values) => {
    setServerError(null);
    try {
      const signedIn = await mutation.mutateAsync({
        contact,
        code,
        usertype: 'driver',
        firstName: values.firstName,
        lastName: values.lastName,
        email: values.email || undefined,
        carType: values.carType,
        vehicleMake: values.vehicleMake,
        vehicleModel: values.vehicleModel,
        vehicleNumber: values.vehicleNumber,
        vehicleColor: values.vehicleColor,
        vehicleYear: values.vehicleYear,
        fleetCode: values.fleetCode || undefined,
      });
      setBearerToken(signedIn.token);
      setSessionMarker(true);
      client.setQueryData(queryKeys.me, signedIn.user);
      onSignedUp(signedIn.user);
    } catch (failure) {
      const key = isApiError(failure) ? failure.code : 'internal_error';
      const field = isApiError(failure) ? failure.field : undefined;
      // A wrong or spent code sends the person back to ask for another.
      if (['invalid_code', 'code_expired', 'too_many_attempts', 'otp_validate_error'].includes(key)) return onBack(key);
      if (field && field in emptyDetails) form.setError(field as keyof DetailsValues, { message: key });
      else setServerError(key);
    }
  });

  const fieldError = (name: keyof DetailsValues) => {
    const message = form.formState.errors[name]?.message;
    return message ? t(message) : undefined;
  };

  return (
    <Box component="form" noValidate onSubmit={submit}>
      <Stack spacing={2}>
        {serverError && <Alert severity="error" onClose={() => setServerError(null)} data-testid="signup-error">{t(serverError)}</Alert>}
        {DETAIL_FIELDS.slice(0, 3).map((name) => (
          <TextField
            key={name}
            label={t(`signup.field.${name}`)}
            {...form.register(name)}
            error={Boolean(form.formState.errors[name])}
            helperText={fieldError(name) ?? (name === 'email' ? t('signup.optional') : undefined)}
            slotProps={{ htmlInput: { 'data-testid': `signup-${name}`, ...(name === 'email' ? { dir: 'ltr', inputMode: 'email' } : {}) } }}
          />
        ))}
        <TextField
          select
          label={t('signup.field.carType')}
          value={form.watch('carType')}
          onChange={(event) => form.setValue('carType', event.target.value, { shouldValidate: form.formState.isSubmitted })}
          error={Boolean(form.formState.errors.carType)}
          helperText={fieldError('carType')}
          slotProps={{ select: { SelectDisplayProps: { 'data-testid': 'signup-carType' } as React.HTMLAttributes<HTMLDivElement> } }}
        >
          {(carTypes.data ?? []).map((carType) => (
            <MenuItem key={carType.id} value={carType.name}>
              {carType.name}
            </MenuItem>
          ))}
        </TextField>
        {DETAIL_FIELDS.slice(3).map((name) => (
          <TextField
            key={name}
            label={t(`signup.field.${name}`)}
            {...form.register(name)}
            error={Boolean(form.formState.errors[name])}
            helperText={fieldError(name)}
            slotProps={{ htmlInput: { 'data-testid': `signup-${name}`, ...(name === 'vehicleNumber' ? { dir: 'ltr', autoCapitalize: 'characters' } : {}) } }}
          />
        ))}
        <TextField
          select
          label={t('signup.field.vehicleYear')}
          value={form.watch('vehicleYear')}
          onChange={(event) => form.setValue('vehicleYear', event.target.value, { shouldValidate: form.formState.isSubmitted })}
          error={Boolean(form.formState.errors.vehicleYear)}
          helperText={fieldError('vehicleYear')}
          slotProps={{ select: { SelectDisplayProps: { 'data-testid': 'signup-vehicleYear' } as React.HTMLAttributes<HTMLDivElement> } }}
        >
          {years.map((year) => (
            <MenuItem key={year} value={year}>
              {year}
            </MenuItem>
          ))}
        </TextField>
        <TextField
          label={t('signup.field.fleetCode')}
          {...form.register('fleetCode')}
          error={Boolean(form.formState.errors.fleetCode)}
          helperText={fieldError('fleetCode') ?? t('signup.fleet_code_help')}
          slotProps={{ htmlInput: { dir: 'ltr', autoCapitalize: 'characters', 'data-testid': 'signup-fleetCode' } }}
        />
        <Button type="submit" variant="contained" size="large" disabled={mutation.isPending} data-testid="signup-submit">
          {mutation.isPending ? t('signup.signing_up') : t('signup.sign_up')}
        </Button>
      </Stack>
    </Box>
  );
}

function DocumentsStep({ onDone }: { onDone: () => void }) {
  const { t } = useTranslation();
  const settings = useSettings();
  const application = useMyApplication();
  const kinds = application.data?.required ?? requiredKinds(settings.driverDocuments);
  const documents = application.data?.documents ?? [];
  const complete = kinds.every((kind) => documents.some((document) => document.kind === kind && document.status !== 'rejected'));
  return (
    <Stack spacing={2}>
      <Typography variant="body2" color="text.secondary">
        {t('signup.documents_hint')}
      </Typography>
      {kinds.map((kind) => (
        <DocumentCard key={kind} kind={kind} current={documents.find((document) => document.kind === kind)} />
      ))}
      <Button variant="contained" size="large" disabled={!complete} onClick={onDone} data-testid="signup-documents-done">
        {t('signup.send_for_review')}
      </Button>
    </Stack>
  );
}

export function SignupWizard() {
  const { t } = useTranslation();
  const { data: me } = useUser();
  // A driver who signed up already (a reload) continues with their documents.
  const [step, setStep] = useState(() => (me?.usertype === 'driver' ? 2 : 0));
  const [verified, setVerified] = useState<{ contact: string; code: string } | null>(null);
  const [codeProblem, setCodeProblem] = useState<string | null>(null);
  const signedUpUser = me?.usertype === 'driver' ? me : null;

  return (
    <Paper elevation={2} sx={{ p: { xs: 2, sm: 4 }, maxWidth: 640, mx: 'auto' }} data-testid="driver-signup" data-step={step}>
      <Typography variant="h5" component="h1" fontWeight={700} gutterBottom>
        {t('signup.title')}
      </Typography>
      <Stepper activeStep={step} alternativeLabel sx={{ mb: 3, '& .MuiStepLabel-label': { fontSize: { xs: 11, sm: 13 } } }}>
        {STEPS.map((label) => (
          <Step key={label}>
            <StepLabel>{t(label)}</StepLabel>
          </Step>
        ))}
      </Stepper>
      {codeProblem && step === 0 && <Alert severity="error" sx={{ mb: 2 }}>{t(codeProblem)}</Alert>}
      {step === 0 && (
        <ContactStep
          onVerified={(contact, code) => {
            setCodeProblem(null);
            setVerified({ contact, code });
            setStep(1);
          }}
        />
      )}
      {step === 1 && verified && (
        <DetailsStep
          contact={verified.contact}
          code={verified.code}
          onSignedUp={() => setStep(2)}
          onBack={(key) => {
            setCodeProblem(key);
            setStep(0);
          }}
        />
      )}
      {step === 2 && <DocumentsStep onDone={() => setStep(3)} />}
      {step === 3 && signedUpUser && <ApplicationView user={signedUpUser} />}
    </Paper>
  );
}
