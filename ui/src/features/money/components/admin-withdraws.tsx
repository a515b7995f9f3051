// Withdraw requests for an admin (spec §2 "/withdraws", §5): every request,
// newest first, paged by the server; an unprocessed one is marked paid out
// after the confirm dialog, never in demo mode.
import TaskAltIcon from '@mui/icons-material/TaskAlt';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { PanelTable, type PanelRowAction } from '@/components/panel/panel-table';
import { confirm } from '@/components/ui/confirm-dialog';
import { notify } from '@/components/ui/notifications/notifications-store';
import { useSettings } from '@/lib/app-data';
import { useCriticalEditsAllowed } from '@/lib/critical-edits';
import { formatMoney } from '@/lib/format';
import { errorText } from '@/lib/server-errors';
import type { WithdrawRequest } from '@/types/api';
import { fetchWithdrawsPage, useCompleteWithdraw, withdrawsKey } from '../api/money';
import { WITHDRAW_COLUMNS } from '../lib/money-columns';
import { moneyGridColumns } from './money-grid-columns';

export function AdminWithdraws() {
  const { t, i18n } = useTranslation();
  const settings = useSettings();
  const criticalEdits = useCriticalEditsAllowed();
  const complete = useCompleteWithdraw();
  const columns = useMemo(() => moneyGridColumns<WithdrawRequest>(WITHDRAW_COLUMNS, t, settings), [t, settings]);

  const completeRequest = async (request: WithdrawRequest) => {
    const confirmed = await confirm({
      title: 'panel.money.complete_title',
      message: t('panel.money.complete_message', { name: request.name, amount: formatMoney(request.amount, settings) }),
      confirmLabel: 'panel.money.complete',
    });
    if (!confirmed) return;
    complete.mutate(request.id, {
      onSuccess: () => notify({ severity: 'success', message: 'panel.money.completed' }),
      onError: (error) => notify({ severity: 'error', message: errorText(error, t, (key) => i18n.exists(key)), translated: true }),
    });
  };

  const actions = (request: WithdrawRequest): PanelRowAction[] => [
    {
      key: 'complete',
      label: 'panel.money.complete',
      icon: <TaskAltIcon />,
      onClick: () => void completeRequest(request),
      disabled: request.processed || !criticalEdits || complete.isPending,
      disabledReason: request.processed ? 'panel.money.already_completed' : 'demo_mode',
    },
  ];

  return (
    <PanelTable<WithdrawRequest>
      testId="withdraws-grid"
      columns={columns}
      search={false}
      emptyText="wallet.no_withdraws"
      source={{ mode: 'server', queryKey: withdrawsKey, fetchPage: fetchWithdrawsPage }}
      actions={actions}
    />
  );
}
