// The pure part of the panel's data grid: keyset pages mapped to the grid's
// page numbers, and the query a page is fetched with.

export type SortOrder = 'asc' | 'desc';

/** Rows per page until the user picks another size. */
export const DEFAULT_PAGE_SIZE = 25;

/** What the server is asked for one page (docs/api.md "Lists and pagination"). */
export interface PageParams {
  limit: number;
  /** The previous page's `next`; absent on the first page. */
  after?: string;
  search?: string;
  sort?: string;
  order?: SortOrder;
}

export interface PageAnswer<Row> {
  items: Row[];
  next: string | null;
}

/**
 * The server pages with cursors, the grid with numbers: `cursors[n]` is the
 * `after` of page n (page 0 has none), known once page n − 1 was read. A page
 * whose cursor is unknown cannot be asked for, so the grid may only step one
 * page forward at a time.
 */
export type Cursors = readonly (string | null)[];

export const FIRST_PAGE: Cursors = [null];

export function cursorOf(cursors: Cursors, page: number): string | null | undefined {
  return cursors[page];
}

/** Records what a page's answer says about the next page. */
export function rememberNext(cursors: Cursors, page: number, next: string | null): Cursors {
  const unchanged = next === null ? cursors.length === page + 1 : cursors[page + 1] === next;
  if (unchanged) return cursors;
  const known = cursors.slice(0, page + 1);
  return next ? [...known, next] : known;
}

export function hasNextPage(cursors: Cursors, page: number): boolean {
  return typeof cursors[page + 1] === 'string';
}

/** The query for a page, with empty values left out so query keys stay stable. */
export function pageParams(input: {
  pageSize: number;
  cursors: Cursors;
  page: number;
  search: string;
  sort?: { field: string; order: SortOrder };
  sortFields?: Record<string, string>;
}): PageParams {
  const params: PageParams = { limit: input.pageSize };
  const after = cursorOf(input.cursors, input.page);
  if (after) params.after = after;
  const search = input.search.trim();
  if (search) params.search = search;
  const serverSort = input.sort && input.sortFields?.[input.sort.field];
  if (input.sort && serverSort) {
    params.sort = serverSort;
    params.order = input.sort.order;
  }
  return params;
}
