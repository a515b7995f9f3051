// The users lists of the panel (spec §2: riders, drivers, fleet admins, all
// admins): paged and searched on the server, newest first; add, edit,
// approve and delete (never oneself) behind the shared confirm dialog; a
// fleet admin sees and adds only their own drivers.
import CheckCircleIcon from '@mui/icons-material/CheckCircle';
import DeleteIcon from '@mui/icons-material/Delete';
import EditIcon from '@mui/icons-material/Edit';
import PersonAddIcon from '@mui/icons-material/PersonAdd';
import { Button, Chip } from '@mui/material';
import type { GridColDef } from '@mui/x-data-grid';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { PanelTable, type PanelRowAction } from '@/components/panel/panel-table';
import { userName } from '@/components/panel/user-picker';
import { confirm } from '@/components/ui/confirm-dialog';
import { notify } from '@/components/ui/notifications/notifications-store';
import { useSettings } from '@/lib/app-data';
import { useUser } from '@/lib/auth';
import { useCriticalEditsAllowed } from '@/lib/critical-edits';
import { formatDateTime, formatMoney } from '@/lib/format';
import { errorText } from '@/lib/server-errors';
import type { User } from '@/types/api';
import { fetchUsersPage, useApproveUser, useDeleteUser, usersKey } from '../api/users';
import { LIST_ROLE, userActions, userColumns, type UserList } from '../lib/user-rules';
import { UserDialog } from './user-dialog';

export function UsersGrid({ list }: { list: UserList }) {
  const { t, i18n } = useTranslation();
  const settings = useSettings();
  const { data: me } = useUser();
  const viewer = me?.usertype ?? 'admin';
  const role = LIST_ROLE[list];
  const criticalEdits = useCriticalEditsAllowed();
  const approve = useApproveUser();
  const remove = useDeleteUser();
  const [editing, setEditing] = useState<User | 'new' | null>(null);
  const failed = (error: unknown) => notify({ severity: 'error', message: errorText(error, t, (key) => i18n.exists(key)), translated: true });

  const columns = useMemo<GridColDef<User>[]>(
    () =>
      userColumns(list, viewer).map((column) => {
        const base: GridColDef<User> = { field: column.field, headerName: t(column.label), sortable: false, flex: 1, minWidth: 130 };
        switch (column.kind) {
          case 'name':
            return { ...base, minWidth: 170, valueGetter: (_value, row) => userName(row) };
          case 'contact':
            return { ...base, minWidth: 190, cellClassName: 'ltr-cell' };
          case 'money':
            return { ...base, type: 'number', valueFormatter: (value: number | undefined) => (value === undefined ? '' : formatMoney(value, settings)) };
          case 'rating':
            return { ...base, type: 'number', minWidth: 90, valueGetter: (_value, row) => row.ratings?.userrating ?? '' };
          case 'date':
            return { ...base, minWidth: 150, valueFormatter: (value: number) => formatDateTime(value) };
          case 'approved':
            return {
              ...base,
              minWidth: 120,
              renderCell: ({ row }) => (
                <Chip size="small" color={row.approved ? 'success' : 'warning'} label={t(row.approved ? 'users.approved_yes' : 'users.approved_no')} data-testid="user-approved-chip" data-approved={String(row.approved)} />
              ),
            };
          default:
            return base;
        }
      }),
    [list, viewer, t, settings],
  );

  const actions = (user: User): PanelRowAction[] => {
    const allowed = userActions(user, { id: me?.id ?? '', role: viewer }, criticalEdits);
    const list: PanelRowAction[] = [
      { key: 'edit', label: 'users.edit_action', icon: <EditIcon />, onClick: () => setEditing(user), disabled: !allowed.edit, disabledReason: 'demo_mode' },
    ];
    if (!user.approved) {
      list.push({
        key: 'approve',
        label: 'users.approve',
        icon: <CheckCircleIcon />,
        onClick: () => approve.mutate(user.id, { onSuccess: () => notify({ severity: 'success', message: 'users.approved_done' }), onError: failed }),
        disabled: !allowed.approve,
        disabledReason: 'demo_mode',
      });
    }
    list.push({
      key: 'delete',
      label: 'users.delete',
      icon: <DeleteIcon />,
      onClick: async () => {
        const yes = await confirm({ title: 'users.delete_title', message: t('users.delete_message', { name: userName(user) }), confirmLabel: 'users.delete', destructive: true });
        if (yes) remove.mutate(user.id, { onSuccess: () => notify({ severity: 'success', message: 'users.deleted' }), onError: failed });
      },
      disabled: !allowed.delete,
      disabledReason: user.id === me?.id ? 'users.not_yourself' : 'demo_mode',
    });
    return list;
  };

  return (
    <>
      <PanelTable<User>
        testId={`users-${list}`}
        columns={columns}
        search="users.search"
        emptyText={`panel.empty.${list}`}
        source={{ mode: 'server', queryKey: usersKey(role), fetchPage: (params, signal) => fetchUsersPage(role, params, signal) }}
        actions={actions}
        toolbar={
          <Button variant="contained" startIcon={<PersonAddIcon />} onClick={() => setEditing('new')} disabled={!criticalEdits} data-testid="user-add">
            {t(`users.add_${role}`)}
          </Button>
        }
      />
      {editing && (
        <UserDialog
          role={role}
          viewer={viewer}
          user={editing === 'new' ? null : editing}
          onClose={(saved) => {
            setEditing(null);
            if (saved) notify({ severity: 'success', message: 'users.saved' });
          }}
        />
      )}
    </>
  );
}
