import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import DeleteIcon from '@mui/icons-material/Delete';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { api } from '@/lib/api-client';
import { apiError, mockApi } from '@/testing/mock-api';
import { renderWithProviders } from '@/testing/test-utils';
import { PanelTable, type PageAnswer, type PageParams } from '../panel-table';

interface Person {
  id: string;
  name: string;
  city: string;
}

const people = (from: number, count: number): Person[] =>
  Array.from({ length: count }, (_, index) => ({ id: `p${from + index}`, name: `Person ${from + index}`, city: from + index === 3 ? 'Towson' : 'Baltimore' }));

const columns = [
  { field: 'name', headerName: 'Name', flex: 1 },
  { field: 'city', headerName: 'City', flex: 1 },
];

const fetchPeople = (params: PageParams) => api.get<PageAnswer<Person>>('/people', { ...params });

afterEach(() => vi.restoreAllMocks());

describe('the panel table', () => {
  it('pages with the server cursor, one page forward at a time, and back', async () => {
    const { fetchMock } = mockApi({
      'GET /api/v1/people': ({ url }) =>
        url.searchParams.get('after') === 'c1' ? { items: people(10, 2), next: null } : { items: people(0, 10), next: 'c1' },
    });
    const user = userEvent.setup();
    renderWithProviders(
      <PanelTable testId="people" columns={columns} initialPageSize={10} source={{ mode: 'server', queryKey: ['people'], fetchPage: fetchPeople }} />,
    );
    expect(await screen.findByText('Person 0')).toBeInTheDocument();
    expect(String(fetchMock.mock.calls[0][0])).toBe('/api/v1/people?limit=10');
    const next = screen.getByRole('button', { name: /next page/i });
    await waitFor(() => expect(next).toBeEnabled());
    await user.click(next);
    expect(await screen.findByText('Person 11')).toBeInTheDocument();
    expect(String(fetchMock.mock.calls.at(-1)![0])).toBe('/api/v1/people?limit=10&after=c1');
    expect(screen.queryByText('Person 0')).not.toBeInTheDocument();
    // The last page: the server said there is nothing after it.
    expect(screen.getByRole('button', { name: /next page/i })).toBeDisabled();
    await user.click(screen.getByRole('button', { name: /previous page/i }));
    expect(await screen.findByText('Person 0')).toBeInTheDocument();
  });

  it('searches on the server from the first page, after the typing stops', async () => {
    const { fetchMock } = mockApi({
      'GET /api/v1/people': ({ url }) => (url.searchParams.get('search') === 'towson' ? { items: [people(3, 1)[0]], next: null } : { items: people(0, 5), next: null }),
    });
    const user = userEvent.setup();
    renderWithProviders(<PanelTable testId="people" columns={columns} source={{ mode: 'server', queryKey: ['people'], fetchPage: fetchPeople }} />);
    await screen.findByText('Person 0');
    await user.type(screen.getByTestId('people-search'), 'towson');
    expect(await screen.findByText('Towson')).toBeInTheDocument();
    await waitFor(() => expect(screen.queryByText('Person 0')).not.toBeInTheDocument());
    const searched = fetchMock.mock.calls.map(([input]) => new URL(String(input), 'http://localhost').searchParams.get('search'));
    // One request for the whole word, none per keystroke.
    expect(searched.filter((value) => value !== null)).toEqual(['towson']);
  });

  it('searches at once on Enter, without waiting for the pause', async () => {
    const { fetchMock } = mockApi({ 'GET /api/v1/people': () => ({ items: people(0, 1), next: null }) });
    const user = userEvent.setup({ delay: null });
    renderWithProviders(<PanelTable testId="people" columns={columns} source={{ mode: 'server', queryKey: ['people'], fetchPage: fetchPeople }} />);
    await screen.findByText('Person 0');
    await user.type(screen.getByTestId('people-search'), 'ann{Enter}');
    // Well inside the 300 ms pause the typing alone would wait for.
    await waitFor(
      () => expect(fetchMock.mock.calls.map(([input]) => new URL(String(input), 'http://localhost').searchParams.get('search'))).toContain('ann'),
      { timeout: 150 },
    );
  });

  it('sorts on the server only by the columns the server can sort', async () => {
    const { fetchMock } = mockApi({ 'GET /api/v1/people': () => ({ items: people(0, 3), next: null }) });
    const user = userEvent.setup();
    renderWithProviders(
      <PanelTable
        testId="people"
        columns={columns}
        source={{ mode: 'server', queryKey: ['people'], fetchPage: fetchPeople, sortFields: { name: 'name' }, defaultSort: { field: 'name', order: 'desc' } }}
      />,
    );
    await screen.findByText('Person 0');
    const first = new URL(String(fetchMock.mock.calls[0][0]), 'http://localhost');
    expect([first.searchParams.get('sort'), first.searchParams.get('order')]).toEqual(['name', 'desc']);
    await user.click(screen.getByRole('columnheader', { name: /name/i }));
    await waitFor(() => {
      const last = new URL(String(fetchMock.mock.calls.at(-1)![0]), 'http://localhost');
      expect([last.searchParams.get('sort'), last.searchParams.get('order')]).toEqual(['name', 'asc']);
    });
    const calls = fetchMock.mock.calls.length;
    await user.click(screen.getByRole('columnheader', { name: /city/i }));
    expect(fetchMock.mock.calls.length).toBe(calls);
  });

  it("says 'No data available.' when there is nothing, and shows a failure with a retry", async () => {
    let fail = true;
    mockApi({ 'GET /api/v1/people': () => (fail ? apiError(403, 'not_allowed') : { items: [], next: null }) });
    const user = userEvent.setup();
    renderWithProviders(<PanelTable testId="people" columns={columns} source={{ mode: 'server', queryKey: ['people'], fetchPage: fetchPeople }} />);
    const alert = await screen.findByTestId('server-error');
    expect(alert).toHaveAttribute('data-code', 'not_allowed');
    fail = false;
    await user.click(within(alert).getByRole('button', { name: 'Try again' }));
    expect(await screen.findByTestId('panel-table-empty')).toHaveTextContent('No data available.');
    expect(screen.queryByTestId('server-error')).not.toBeInTheDocument();
  });

  it("names what the list holds when it is empty, and says a search found nothing rather than that there is nothing", async () => {
    mockApi({ 'GET /api/v1/people': ({ url }) => (url.searchParams.get('search') ? { items: [], next: null } : { items: [], next: null }) });
    const user = userEvent.setup();
    renderWithProviders(
      <PanelTable testId="people" columns={columns} emptyText="panel.empty.drivers" source={{ mode: 'server', queryKey: ['people'], fetchPage: fetchPeople }} />,
    );
    expect(await screen.findByTestId('panel-table-empty')).toHaveTextContent('No drivers yet.');
    await user.type(screen.getByTestId('people-search'), 'zebra{Enter}');
    await waitFor(() => expect(screen.getByTestId('panel-table-empty')).toHaveTextContent('Nothing matches “zebra”.'));
  });

  it('offers row actions with their state, and exports the searched list as a file', async () => {
    const removed: string[] = [];
    const exported: string[] = [];
    const searched: string[] = [];
    vi.stubGlobal('fetch', async (input: RequestInfo | URL) => {
      const url = new URL(String(input), 'http://localhost');
      searched.push(url.searchParams.get('search') ?? '');
      if (url.pathname === '/api/v1/people/export') {
        exported.push(url.search);
        return new Response('name\r\n', { headers: { 'content-type': 'text/csv', 'content-disposition': 'attachment; filename="people.csv"' } });
      }
      return new Response(JSON.stringify({ items: people(0, 2), next: null }), { headers: { 'content-type': 'application/json' } });
    });
    URL.createObjectURL = vi.fn(() => 'blob:people');
    URL.revokeObjectURL = vi.fn();
    const clicked = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(() => undefined);
    const user = userEvent.setup();
    renderWithProviders(
      <PanelTable
        testId="people"
        columns={columns}
        source={{ mode: 'server', queryKey: ['people'], fetchPage: fetchPeople }}
        exportFile={{ path: '/people/export' }}
        actions={(row) => [
          { key: 'delete', label: 'common.cancel', icon: <DeleteIcon />, onClick: () => removed.push(row.id), disabled: row.id === 'p1' },
        ]}
      />,
    );
    await screen.findByText('Person 0');
    const buttons = screen.getAllByTestId('action-delete');
    expect(buttons[0]).toBeEnabled();
    expect(buttons[1]).toBeDisabled();
    await user.click(buttons[0]);
    expect(removed).toEqual(['p0']);
    await user.type(screen.getByTestId('people-search'), 'ann');
    await waitFor(() => expect(searched).toContain('ann'));
    await user.click(screen.getByTestId('people-export-xlsx'));
    await waitFor(() => expect(clicked).toHaveBeenCalled());
    expect(exported.at(-1)).toBe('?search=ann&format=xlsx');
  });

  it('searches, sorts and pages a list the server sends whole, in the browser', async () => {
    const user = userEvent.setup();
    renderWithProviders(
      <PanelTable testId="people" columns={columns} source={{ mode: 'client', rows: people(0, 4), isPending: false, error: null }} />,
    );
    expect(await screen.findByText('Person 3')).toBeInTheDocument();
    await user.type(screen.getByTestId('people-search'), 'towson');
    await waitFor(() => expect(screen.queryByText('Person 0')).not.toBeInTheDocument());
    expect(screen.getByText('Person 3')).toBeInTheDocument();
  });
});

describe('the row actions tip', () => {
  it('names the action under the pointer, and says why a disabled one is disabled', async () => {
    const rows = [{ id: 'p1', name: 'Ada' }];
    renderWithProviders(
      <PanelTable<{ id: string; name: string }>
        testId="people"
        columns={[{ field: 'name', headerName: 'Name' }]}
        source={{ mode: 'client', rows, isPending: false, error: null }}
        actions={() => [
          { key: 'go', label: 'Go there', icon: <span>→</span>, onClick: () => undefined },
          { key: 'stop', label: 'Stop', icon: <span>■</span>, onClick: () => undefined, disabled: true, disabledReason: 'Not now' },
        ]}
      />,
    );
    const user = userEvent.setup();
    await user.hover(await screen.findByTestId('action-go'));
    expect(await screen.findByTestId('grid-tip')).toHaveTextContent('Go there');
    await user.hover(screen.getByTestId('action-stop').parentElement as HTMLElement);
    await waitFor(() => expect(screen.getByTestId('grid-tip')).toHaveTextContent('Not now'));
    await user.unhover(screen.getByTestId('action-stop').parentElement as HTMLElement);
    await user.hover(screen.getByText('Ada'));
    await waitFor(() => expect(screen.queryByTestId('grid-tip')).not.toBeInTheDocument());
  });
});
