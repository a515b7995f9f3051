import { Autocomplete, CircularProgress, Stack, TextField, Typography } from '@mui/material';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useDebouncedValue } from '@/hooks/use-debounced-value';
import { api } from '@/lib/api-client';
import type { Role, User } from '@/types/api';
import type { Page } from '@/types/app';

export function userName(user: Pick<User, 'firstName' | 'lastName' | 'email' | 'mobile'>) {
  return [user.firstName, user.lastName].filter((part) => part && part.trim()).join(' ') || user.email || user.mobile || '';
}

/** Picks a user by typing part of a name, e-mail or phone: the server
 * searches (`GET /users?search=`), the first page of matches is offered. */
export function UserPicker({
  label,
  roles,
  value,
  onChange,
  error,
  testId = 'user-picker',
}: {
  /** Translation key. */
  label: string;
  /** The user types to look among (one request per type). */
  roles: Role[];
  value: User | null;
  onChange: (user: User | null) => void;
  /** Translation key of a problem to show under the field. */
  error?: string | null;
  testId?: string;
}) {
  const { t } = useTranslation();
  const [text, setText] = useState('');
  const search = useDebouncedValue(text.trim(), 250);
  const users = useQuery({
    queryKey: ['users', 'picker', roles, search],
    queryFn: async ({ signal }) => {
      const pages = await Promise.all(
        roles.map((role) => api.get<Page<User>>('/users', { role, search: search || undefined, limit: 20 }, signal)),
      );
      return pages.flatMap((page) => page.items);
    },
    placeholderData: keepPreviousData,
  });
  return (
    <Autocomplete<User>
      value={value}
      onChange={(_, user) => onChange(user)}
      inputValue={text}
      onInputChange={(_, next) => setText(next)}
      options={users.data ?? []}
      // The server already matched: show what it found.
      filterOptions={(options) => options}
      getOptionLabel={(user) => userName(user)}
      isOptionEqualToValue={(option, chosen) => option.id === chosen.id}
      loading={users.isFetching}
      noOptionsText={t('panel.picker.none')}
      loadingText={t('common.loading')}
      data-testid={testId}
      renderOption={({ key, ...props }, user) => (
        <li key={key} {...props} data-testid={`${testId}-option`} data-user-id={user.id}>
          <Stack>
            <Typography>{userName(user)}</Typography>
            <Typography variant="caption" color="text.secondary">
              {[t(`usertype.${user.usertype}`), user.email, user.mobile].filter(Boolean).join(' · ')}
            </Typography>
          </Stack>
        </li>
      )}
      renderInput={(params) => (
        <TextField
          {...params}
          label={t(label)}
          error={Boolean(error)}
          helperText={error ? t(error) : undefined}
          slotProps={{
            htmlInput: { ...params.inputProps, 'data-testid': `${testId}-input` },
            input: {
              ...params.InputProps,
              endAdornment: (
                <>
                  {users.isFetching ? <CircularProgress color="inherit" size={18} /> : null}
                  {params.InputProps.endAdornment}
                </>
              ),
            },
          }}
        />
      )}
    />
  );
}
