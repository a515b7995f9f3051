import { vi } from 'vitest';

type Handler = (request: { body: unknown; url: URL }) => { status?: number; body: unknown } | unknown;

/** Stubs fetch with handlers keyed "METHOD /api/v1/path"; unknown routes answer 404 JSON. */
export function mockApi(routes: Record<string, Handler>) {
  const calls: { method: string; path: string; body: unknown; headers: Record<string, string> }[] = [];
  const fetchMock = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(String(input), 'http://localhost');
    const method = (init?.method ?? 'GET').toUpperCase();
    const body = typeof init?.body === 'string' ? JSON.parse(init.body) : init?.body;
    const headers = Object.fromEntries(new Headers(init?.headers).entries());
    calls.push({ method, path: url.pathname, body, headers });
    const handler = routes[`${method} ${url.pathname}`];
    if (!handler) {
      return new Response(JSON.stringify({ error: { code: 'not_found', message: 'Not found.' } }), {
        status: 404,
        headers: { 'content-type': 'application/json' },
      });
    }
    const answer = handler({ body, url });
    const shaped =
      answer && typeof answer === 'object' && 'body' in (answer as object) && 'status' in (answer as object)
        ? (answer as { status: number; body: unknown })
        : { status: 200, body: answer };
    return new Response(JSON.stringify(shaped.body), { status: shaped.status ?? 200, headers: { 'content-type': 'application/json' } });
  });
  vi.stubGlobal('fetch', fetchMock);
  return { calls, fetchMock };
}

export function apiError(status: number, code: string) {
  return { status, body: { error: { code, message: code } } };
}
