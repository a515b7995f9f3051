// Cancellation reasons (spec §2 "/cancelreasons", page size 10): the list
// riders and admins choose from when cancelling; add, rename, delete.
import AddIcon from '@mui/icons-material/Add';
import DeleteIcon from '@mui/icons-material/Delete';
import EditIcon from '@mui/icons-material/Edit';
import { Button } from '@mui/material';
import type { GridColDef } from '@mui/x-data-grid';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { PanelTable } from '@/components/panel/panel-table';
import { confirm } from '@/components/ui/confirm-dialog';
import { notify } from '@/components/ui/notifications/notifications-store';
import { useCriticalEditsAllowed } from '@/lib/critical-edits';
import { errorText } from '@/lib/server-errors';
import { useAddReason, useDeleteReason, useEditReason, useReasons, type Reason } from '../api/catalogue';
import { TextDialog } from './text-dialog';

export function CancelReasons() {
  const { t, i18n } = useTranslation();
  const criticalEdits = useCriticalEditsAllowed();
  const reasons = useReasons();
  const add = useAddReason();
  const edit = useEditReason();
  const remove = useDeleteReason();
  const [editing, setEditing] = useState<Reason | 'new' | null>(null);
  const [error, setError] = useState<string | null>(null);
  const text = (failure: unknown) => errorText(failure, t, (key) => i18n.exists(key));
  const columns = useMemo<GridColDef<Reason>[]>(
    () => [
      { field: 'value', headerName: '#', width: 70, type: 'number', valueGetter: (value: number) => value + 1 },
      { field: 'label', headerName: t('catalogue.reason'), flex: 1, minWidth: 220 },
    ],
    [t],
  );
  const close = () => {
    setEditing(null);
    setError(null);
  };
  const save = (label: string) => {
    const done = { onSuccess: () => { close(); notify({ severity: 'success', message: 'users.saved' }); }, onError: (failure: unknown) => setError(text(failure)) };
    if (editing === 'new') add.mutate(label, done);
    else if (editing) edit.mutate({ index: editing.value, label }, done);
  };

  return (
    <>
      <PanelTable<Reason>
        testId="cancel-reasons"
        columns={columns}
        emptyText="panel.empty.cancelreasons"
        getRowId={(row) => String(row.value)}
        source={{ mode: 'client', rows: reasons.data, isPending: reasons.isPending, error: reasons.error, refetch: () => void reasons.refetch() }}
        initialPageSize={10}
        pageSizeOptions={[10, 25]}
        actions={(reason) => [
          { key: 'edit', label: 'users.edit_action', icon: <EditIcon />, onClick: () => setEditing(reason), disabled: !criticalEdits, disabledReason: 'demo_mode' },
          {
            key: 'delete',
            label: 'users.delete',
            icon: <DeleteIcon />,
            onClick: async () => {
              const yes = await confirm({ title: 'catalogue.delete_reason', message: reason.label, confirmLabel: 'users.delete', destructive: true });
              if (yes) remove.mutate(reason.value, { onError: (failure) => notify({ severity: 'error', message: text(failure), translated: true }) });
            },
            disabled: !criticalEdits,
            disabledReason: 'demo_mode',
          },
        ]}
        toolbar={
          <Button variant="contained" startIcon={<AddIcon />} onClick={() => setEditing('new')} disabled={!criticalEdits} data-testid="reason-add">
            {t('catalogue.add_reason')}
          </Button>
        }
      />
      {editing && (
        <TextDialog
          testId="reason-dialog"
          title={editing === 'new' ? 'catalogue.add_reason' : 'catalogue.edit_reason'}
          label="catalogue.reason"
          initial={editing === 'new' ? '' : editing.label}
          busy={add.isPending || edit.isPending}
          error={error}
          onSave={save}
          onClose={close}
        />
      )}
    </>
  );
}
