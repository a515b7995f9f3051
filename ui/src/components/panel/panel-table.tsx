// The panel's one data grid (STYLE.md "One table, many screens"): paging,
// sorting and search on the server (or, for short lists the server sends
// whole, in the grid), row actions, export, and the loading, empty and error
// states. Each screen gives it columns, where its rows come from and its actions.
import DownloadIcon from '@mui/icons-material/Download';
import SearchIcon from '@mui/icons-material/Search';
import { alpha, Box, Button, InputAdornment, Paper, Stack, TextField, Typography } from '@mui/material';
import {
  DataGrid,
  GridActionsCellItem,
  type GridColDef,
  type GridPaginationModel,
  type GridRowParams,
  type GridSortModel,
  type GridValidRowModel,
} from '@mui/x-data-grid';
import { arSD, enUS, frFR } from '@mui/x-data-grid/locales';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useEffect, useMemo, useState, type ReactElement, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { notify } from '@/components/ui/notifications/notifications-store';
import { ServerErrorAlert } from '@/components/ui/server-error-alert';
import { GridTipArea } from './grid-tip';
import { useDebouncedValue } from '@/hooks/use-debounced-value';
import { apiDownload, saveFile, type RequestOptions } from '@/lib/api-client';
import { errorText } from '@/lib/server-errors';
import {
  DEFAULT_PAGE_SIZE,
  FIRST_PAGE,
  hasNextPage,
  pageParams,
  rememberNext,
  type Cursors,
  type PageAnswer,
  type PageParams,
  type SortOrder,
} from './panel-table-model';

export type { PageAnswer, PageParams } from './panel-table-model';

/** Rows paged, sorted and searched by the server. */
export interface ServerSource<Row> {
  mode: 'server';
  /** The list's query key, filters included (a new key starts from the
   * first page); the page's parameters are appended to it. */
  queryKey: readonly unknown[];
  fetchPage: (params: PageParams, signal?: AbortSignal) => Promise<PageAnswer<Row>>;
  /** Grid field → the server's sort name. Only these columns sort. */
  sortFields?: Record<string, string>;
  defaultSort?: { field: string; order: SortOrder };
}

/** A short list the server sends whole: the grid pages, sorts and searches it. */
export interface ClientSource<Row> {
  mode: 'client';
  rows: Row[] | undefined;
  isPending: boolean;
  error: unknown;
  refetch?: () => void;
}

export interface PanelRowAction {
  key: string;
  /** Translation key of the action's name (its tooltip and accessible label). */
  label: string;
  icon: ReactElement;
  onClick: () => void;
  disabled?: boolean;
  /** Why it is disabled, as a translation key, shown as the tooltip. */
  disabledReason?: string;
}

export interface PanelExport {
  /** The route that answers the list as a file with `format=csv|xlsx`. */
  path: string;
  query?: RequestOptions['query'];
}

export interface PanelTableProps<Row extends GridValidRowModel> {
  testId: string;
  columns: GridColDef<Row>[];
  source: ServerSource<Row> | ClientSource<Row>;
  getRowId?: (row: Row) => string;
  /** Translation key of the search box's placeholder; no box when false. */
  search?: string | false;
  /** Translation key of the empty text (spec §8), naming what the list holds ("No drivers yet.");
   * 'No data available.' by default. A search that finds nothing says so instead. */
  emptyText?: string;
  actions?: (row: Row) => PanelRowAction[];
  /** Export buttons, when the list may be exported (spec §2: only when critical edits are allowed). */
  exportFile?: PanelExport | null;
  /** Buttons and filters drawn beside the search box. */
  toolbar?: ReactNode;
  pageSizeOptions?: number[];
  initialPageSize?: number;
  rowHeight?: number;
  onRowClick?: (row: Row) => void;
  /** Columns hidden until the user shows them from the column menu. */
  hiddenColumns?: string[];
  /** A row to draw out with a tint of this colour (a booking no driver has). */
  rowTone?: (row: Row) => RowTone | null;
}

export type RowTone = 'warning' | 'error' | 'info';

const ROW_TONES: RowTone[] = ['warning', 'error', 'info'];

const GRID_LOCALES = { ar: arSD, fr: frFR, en: enUS } as const;

function gridLocaleText(language: string) {
  const code = language.split('-')[0] as keyof typeof GRID_LOCALES;
  return (GRID_LOCALES[code] ?? enUS).components.MuiDataGrid.defaultProps.localeText;
}

function EmptyOverlay({ text }: { text: string }) {
  return (
    <Stack height="100%" alignItems="center" justifyContent="center" data-testid="panel-table-empty">
      <Typography color="text.secondary">{text}</Typography>
    </Stack>
  );
}

function useServerRows<Row>(source: ServerSource<Row> | ClientSource<Row>, search: string, initialPageSize: number) {
  const server = source.mode === 'server' ? source : null;
  const [pagination, setPagination] = useState<GridPaginationModel>({ page: 0, pageSize: initialPageSize });
  const [cursors, setCursors] = useState<Cursors>(FIRST_PAGE);
  const [sort, setSort] = useState(server?.defaultSort);
  const params = pageParams({
    pageSize: pagination.pageSize,
    cursors,
    page: pagination.page,
    search,
    sort,
    sortFields: server?.sortFields,
  });
  const query = useQuery({
    queryKey: [...(server?.queryKey ?? ['panel-table-client']), params],
    queryFn: ({ signal }) => server!.fetchPage(params, signal),
    enabled: Boolean(server),
    placeholderData: keepPreviousData,
  });
  const next = query.data && !query.isPlaceholderData ? query.data.next : undefined;
  useEffect(() => {
    if (next !== undefined) setCursors((known) => rememberNext(known, pagination.page, next));
  }, [next, pagination.page]);
  // A new search, or another list (a filter is part of the key), starts
  // again from the first page.
  const listKey = JSON.stringify(server?.queryKey ?? null);
  useEffect(() => {
    setCursors(FIRST_PAGE);
    setPagination((current) => (current.page === 0 ? current : { ...current, page: 0 }));
  }, [search, listKey]);
  // Until the page's own answer is in, the grid must not conclude that the
  // list ends here (it would clamp back to an earlier page).
  const settled = query.data !== undefined && !query.isPlaceholderData;
  const hasNext = settled ? query.data.next !== null : true;
  // Known only on the last page; the grid needs it to end the paging there.
  const rowCount = settled && !hasNext ? pagination.page * pagination.pageSize + query.data.items.length : -1;
  // The grid goes back to the first page whenever it sees a new sort model,
  // so the model keeps its identity between renders.
  const sortModel = useMemo<GridSortModel>(() => (sort ? [{ field: sort.field, sort: sort.order }] : []), [sort]);
  return {
    query,
    pagination,
    sort,
    sortModel,
    hasNext,
    rowCount,
    onPagination: (model: GridPaginationModel) => {
      if (model.pageSize !== pagination.pageSize) {
        setCursors(FIRST_PAGE);
        setPagination({ page: 0, pageSize: model.pageSize });
        return;
      }
      // Keyset pages: only the pages whose cursor is known can be reached.
      if (model.page <= pagination.page || hasNextPage(cursors, pagination.page)) setPagination(model);
    },
    onSort: (model: GridSortModel) => {
      const first = model[0];
      setSort(first?.sort ? { field: first.field, order: first.sort } : server?.defaultSort);
      setCursors(FIRST_PAGE);
      setPagination((current) => ({ ...current, page: 0 }));
    },
  };
}

export function PanelTable<Row extends GridValidRowModel>({
  testId,
  columns,
  source,
  getRowId,
  search: searchLabel = 'panel.table.search',
  emptyText = 'table.empty',
  actions,
  exportFile,
  toolbar,
  pageSizeOptions = [10, 25, 50, 100],
  initialPageSize = DEFAULT_PAGE_SIZE,
  rowHeight,
  onRowClick,
  hiddenColumns,
  rowTone,
}: PanelTableProps<Row>) {
  const { t, i18n } = useTranslation();
  const [searchText, setSearchText] = useState('');
  const debounced = useDebouncedValue(searchText, 300);
  // Enter searches at once; typing searches when the typing pauses.
  const [entered, setEntered] = useState<string | null>(null);
  const search = entered !== null && entered === searchText ? entered : debounced;
  const [exporting, setExporting] = useState<string | null>(null);
  const server = useServerRows(source, search, initialPageSize);
  const [clientPagination, setClientPagination] = useState<GridPaginationModel>({ page: 0, pageSize: initialPageSize });
  const clientFilter = useMemo(() => ({ items: [], quickFilterValues: search.trim() ? search.trim().split(/\s+/) : [] }), [search]);

  const allColumns = useMemo(() => {
    const sortFields = source.mode === 'server' ? (source.sortFields ?? {}) : null;
    const shaped = columns.map((column) => ({
      ...column,
      // On the server only the columns it can sort by an index are sortable.
      sortable: sortFields ? column.field in sortFields : (column.sortable ?? true),
      filterable: false,
    }));
    if (!actions) return shaped;
    const actionColumn: GridColDef<Row> = {
      field: '__actions',
      type: 'actions',
      headerName: t('panel.table.actions'),
      minWidth: 120,
      getActions: (params: GridRowParams<Row>) =>
        actions(params.row).map((action) => (
          // The span keeps the tip on a disabled button (GridTipArea draws it).
          <span key={action.key} data-tip={t(action.disabled && action.disabledReason ? action.disabledReason : action.label)}>
            <GridActionsCellItem
              icon={action.icon}
              label={t(action.label)}
              onClick={(event) => {
                // The row's own click (opening it) is not this action's.
                event.stopPropagation();
                action.onClick();
              }}
              disabled={action.disabled}
              data-testid={`action-${action.key}`}
            />
          </span>
        )),
    };
    // First, so a wide table never scrolls its actions out of sight.
    return [actionColumn, ...shaped];
  }, [columns, actions, source, t]);

  const rows = source.mode === 'server' ? (server.query.data?.items ?? []) : (source.rows ?? []);
  const loading = source.mode === 'server' ? server.query.isFetching : source.isPending;
  const error = source.mode === 'server' ? (server.query.data ? null : server.query.error) : source.error;
  const retry = source.mode === 'server' ? () => void server.query.refetch() : source.refetch;

  const runExport = async (format: 'csv' | 'xlsx') => {
    if (!exportFile) return;
    setExporting(format);
    try {
      const sortParams =
        source.mode === 'server' && server.sort && source.sortFields?.[server.sort.field]
          ? { sort: source.sortFields[server.sort.field], order: server.sort.order }
          : {};
      saveFile(await apiDownload(exportFile.path, { ...exportFile.query, ...sortParams, search: search.trim(), format }));
    } catch (failure) {
      notify({ severity: 'error', message: errorText(failure, t, (key) => i18n.exists(key)), translated: true });
    } finally {
      setExporting(null);
    }
  };

  // A search that finds nothing says so, rather than that the list is empty.
  const emptyLabel = search.trim() ? t('table.no_match', { search: search.trim() }) : t(emptyText);
  const hasToolbar = searchLabel !== false || Boolean(toolbar) || Boolean(exportFile);
  return (
    <Paper variant="outlined" data-testid={testId} sx={{ overflow: 'hidden' }}>
      {/* No empty strip above a grid that has nothing to search, filter or export. */}
      {hasToolbar && (
        <Stack direction="row" spacing={1} useFlexGap sx={{ p: 1.5, flexWrap: 'wrap', alignItems: 'center' }}>
          {searchLabel !== false && (
            <TextField
              size="small"
              value={searchText}
              onChange={(event) => setSearchText(event.target.value)}
              onKeyDown={(event) => {
                if (event.key === 'Enter') setEntered(searchText);
              }}
              placeholder={t(searchLabel)}
              sx={{ minWidth: { xs: '100%', sm: 280 } }}
              slotProps={{
                htmlInput: { 'data-testid': `${testId}-search`, 'aria-label': t(searchLabel) },
                input: {
                  startAdornment: (
                    <InputAdornment position="start">
                      <SearchIcon fontSize="small" />
                    </InputAdornment>
                  ),
                },
              }}
            />
          )}
          <Box sx={{ flexGrow: 1 }} />
          {toolbar}
          {exportFile &&
            (['csv', 'xlsx'] as const).map((format) => (
              <Button
                key={format}
                size="small"
                variant="outlined"
                startIcon={<DownloadIcon />}
                disabled={exporting !== null}
                onClick={() => void runExport(format)}
                data-testid={`${testId}-export-${format}`}
              >
                {t(`panel.table.export_${format}`)}
              </Button>
            ))}
        </Stack>
      )}
      {error ? (
        <Box sx={{ px: 1.5, pb: 1.5 }}>
          <ServerErrorAlert error={error} onRetry={retry} />
        </Box>
      ) : null}
      <Box sx={{ display: 'flex', flexDirection: 'column', minHeight: 220, maxHeight: '75vh' }}>
        <GridTipArea>
          <DataGrid<Row>
            rows={rows}
            columns={allColumns}
            getRowId={getRowId}
            loading={loading}
            rowHeight={rowHeight}
            disableColumnFilter
            disableRowSelectionOnClick
            localeText={gridLocaleText(i18n.language)}
            pageSizeOptions={pageSizeOptions}
            onRowClick={onRowClick ? (params) => onRowClick(params.row) : undefined}
            getRowClassName={rowTone ? (params) => (rowTone(params.row) ? `panel-row-${rowTone(params.row)}` : '') : undefined}
            initialState={hiddenColumns ? { columns: { columnVisibilityModel: Object.fromEntries(hiddenColumns.map((field) => [field, false])) } } : undefined}
            slots={{ noRowsOverlay: () => <EmptyOverlay text={emptyLabel} />, noResultsOverlay: () => <EmptyOverlay text={emptyLabel} /> }}
            // jsdom has no layout: draw every row there instead of the visible ones.
            disableVirtualization={import.meta.env.MODE === 'test'}
            sx={(theme) => ({
              border: 0,
              borderTop: hasToolbar ? 1 : 0,
              borderColor: 'divider',
              borderRadius: 0,
              ...(onRowClick ? { '& .MuiDataGrid-row': { cursor: 'pointer' } } : {}),
              ...Object.fromEntries(
                ROW_TONES.map((tone) => [
                  `& .panel-row-${tone}`,
                  { bgcolor: alpha(theme.palette[tone].main, 0.14), '&:hover': { bgcolor: alpha(theme.palette[tone].main, 0.22) } },
                ]),
              ),
            })}
            {...(source.mode === 'server'
              ? {
                  paginationMode: 'server' as const,
                  sortingMode: 'server' as const,
                  filterMode: 'server' as const,
                  rowCount: server.rowCount,
                  paginationMeta: { hasNextPage: server.hasNext },
                  // Newest or largest first is what a dispatcher asks for first.
                  sortingOrder: ['desc' as const, 'asc' as const],
                  paginationModel: server.pagination,
                  onPaginationModelChange: server.onPagination,
                  sortModel: server.sortModel,
                  onSortModelChange: server.onSort,
                }
              : {
                  paginationModel: clientPagination,
                  onPaginationModelChange: setClientPagination,
                  filterModel: clientFilter,
                })}
          />
        </GridTipArea>
      </Box>
    </Paper>
  );
}
