import { describe, expect, it } from 'vitest';
import { FIRST_PAGE, hasNextPage, pageParams, rememberNext } from '../panel-table-model';

describe('keyset pages in the grid', () => {
  it('learns each next cursor as pages are read, and forgets the tail when a page is the last', () => {
    let cursors = FIRST_PAGE;
    expect(hasNextPage(cursors, 0)).toBe(false);
    cursors = rememberNext(cursors, 0, 'c1');
    expect(cursors).toEqual([null, 'c1']);
    expect(hasNextPage(cursors, 0)).toBe(true);
    cursors = rememberNext(cursors, 1, 'c2');
    expect(cursors).toEqual([null, 'c1', 'c2']);
    // Page 1 read again after rows were deleted: it is now the last page.
    cursors = rememberNext(cursors, 1, null);
    expect(cursors).toEqual([null, 'c1']);
    expect(hasNextPage(cursors, 1)).toBe(false);
  });

  it('keeps the same array when nothing new was learnt, so nothing re-renders', () => {
    const cursors = rememberNext(FIRST_PAGE, 0, 'c1');
    expect(rememberNext(cursors, 0, 'c1')).toBe(cursors);
    const last = rememberNext(FIRST_PAGE, 0, null);
    expect(rememberNext(last, 0, null)).toBe(last);
  });

  it('asks for a page with its cursor, the trimmed search and the server sort of a sortable column', () => {
    const cursors = [null, 'c1'] as const;
    expect(pageParams({ pageSize: 25, cursors, page: 0, search: '  ' })).toEqual({ limit: 25 });
    expect(
      pageParams({
        pageSize: 50,
        cursors,
        page: 1,
        search: ' smith ',
        sort: { field: 'bookingDate', order: 'asc' },
        sortFields: { bookingDate: 'bookingDate', tripdate: 'tripdate' },
      }),
    ).toEqual({ limit: 50, after: 'c1', search: 'smith', sort: 'bookingDate', order: 'asc' });
    // A column the server cannot sort by sends no sort at all.
    expect(pageParams({ pageSize: 10, cursors, page: 0, search: '', sort: { field: 'otp', order: 'asc' }, sortFields: { tripdate: 'tripdate' } })).toEqual({
      limit: 10,
    });
  });
});
