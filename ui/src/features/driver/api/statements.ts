// Issue #37: the driver's weekly earnings statements: the weeks they have
// one for (with the week's totals, newest first), and each week's statement
// as a PDF to keep or a page to read.
import { queryOptions, useQuery } from '@tanstack/react-query';
import { api, apiDownload } from '@/lib/api-client';
import { queryKeys } from '@/lib/query-keys';
import type { StatementWeeks } from '@/types/api';

export const statementWeeksQueryOptions = () =>
  queryOptions({
    queryKey: queryKeys.statementWeeks,
    queryFn: ({ signal }) => api.get<StatementWeeks>('/drivers/me/statements', undefined, signal),
  });

export function useStatementWeeks() {
  return useQuery(statementWeeksQueryOptions());
}

/** One week's statement (`week` is `YYYY-Www`) as the server renders it. */
export function downloadStatement(driverId: string, week: string, format: 'pdf' | 'html') {
  return apiDownload(`/drivers/${encodeURIComponent(driverId)}/statements`, { week, format });
}
