// The one API client: same-origin requests that carry the session cookie (and
// the bearer token of this page's sign-in when there is one), JSON in and out,
// and every refusal turned into an ApiError whose `code` is a translation key.

export class ApiError extends Error {
  readonly status: number;
  /** A translation key from the server (spec §8), or one of ours. */
  readonly code: string;
  readonly field?: string;
  /** The server has no such route yet (404, or the app's index.html fallback). */
  readonly missingRoute: boolean;

  constructor(status: number, code: string, message: string, field?: string, missingRoute = false) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.field = field;
    this.missingRoute = missingRoute;
  }
}

export function isApiError(error: unknown): error is ApiError {
  return error instanceof ApiError;
}

let bearerToken: string | null = null;

/** Kept in memory only: after a reload the HttpOnly cookie carries the session. */
export function setBearerToken(token: string | null) {
  bearerToken = token;
}

export function getBearerToken() {
  return bearerToken;
}

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  body?: unknown;
  query?: Record<string, string | number | boolean | undefined | null>;
  signal?: AbortSignal;
  /** Extra request headers, such as `Idempotency-Key`. */
  headers?: Record<string, string>;
}

export const API_PREFIX = '/api/v1';

function urlOf(path: string, query?: RequestOptions['query']) {
  const url = path.startsWith('/api/') ? path : `${API_PREFIX}${path}`;
  if (!query) return url;
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined && value !== null && value !== '') params.set(name, String(value));
  }
  const text = params.toString();
  return text ? `${url}?${text}` : url;
}

export async function apiRequest<T>(path: string, options: RequestOptions = {}): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  let body: BodyInit | undefined;
  if (options.body instanceof FormData) {
    body = options.body;
  } else if (options.body !== undefined) {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(options.body);
  }
  if (bearerToken) headers.Authorization = `Bearer ${bearerToken}`;
  Object.assign(headers, options.headers);
  let response: Response;
  try {
    response = await fetch(urlOf(path, options.query), {
      method: options.method ?? (options.body === undefined ? 'GET' : 'POST'),
      headers,
      body,
      credentials: 'same-origin',
      signal: options.signal,
    });
  } catch (error) {
    if (error instanceof DOMException && error.name === 'AbortError') throw error;
    throw new ApiError(0, 'unavailable', 'The service could not be reached.');
  }
  // A delete answers 204 with nothing to read.
  if (response.status === 204) return undefined as T;
  const isJson = (response.headers.get('content-type') ?? '').includes('application/json');
  if (!isJson) {
    // A route the server does not have yet answers 404, or 405, or (when it
    // serves the built app) index.html for client-side routing.
    if (response.status === 404 || response.status === 405 || response.ok) {
      throw new ApiError(404, 'not_found', 'Not found.', undefined, true);
    }
    throw new ApiError(response.status, response.status >= 500 ? 'internal_error' : 'invalid_input', response.statusText);
  }
  const payload: unknown = await response.json();
  if (!response.ok) {
    const detail = (payload as { error?: { code?: string; message?: string; field?: string } })?.error;
    throw new ApiError(
      response.status,
      detail?.code ?? (response.status >= 500 ? 'internal_error' : 'invalid_input'),
      detail?.message ?? response.statusText,
      detail?.field,
    );
  }
  return payload as T;
}

/** A file the server makes (an export): fetched with the session, so a
 * refusal comes back as an ApiError instead of a page of JSON. */
export async function apiDownload(path: string, query?: RequestOptions['query']): Promise<{ blob: Blob; filename: string }> {
  const headers: Record<string, string> = {};
  if (bearerToken) headers.Authorization = `Bearer ${bearerToken}`;
  let response: Response;
  try {
    response = await fetch(urlOf(path, query), { headers, credentials: 'same-origin' });
  } catch {
    throw new ApiError(0, 'unavailable', 'The service could not be reached.');
  }
  if (!response.ok) {
    const payload = (await response.json().catch(() => null)) as { error?: { code?: string; message?: string; field?: string } } | null;
    throw new ApiError(
      response.status,
      payload?.error?.code ?? (response.status >= 500 ? 'internal_error' : 'invalid_input'),
      payload?.error?.message ?? response.statusText,
      payload?.error?.field,
    );
  }
  const disposition = response.headers.get('content-disposition') ?? '';
  const filename = /filename="?([^";]+)"?/i.exec(disposition)?.[1] ?? 'export';
  return { blob: await response.blob(), filename };
}

/** Hands a downloaded file to the browser to save. */
export function saveFile({ blob, filename }: { blob: Blob; filename: string }) {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = filename;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

export const api = {
  get: <T>(path: string, query?: RequestOptions['query'], signal?: AbortSignal) => apiRequest<T>(path, { query, signal }),
  post: <T>(path: string, body: unknown = {}) => apiRequest<T>(path, { method: 'POST', body }),
  patch: <T>(path: string, body: unknown) => apiRequest<T>(path, { method: 'PATCH', body }),
  put: <T>(path: string, body: unknown) => apiRequest<T>(path, { method: 'PUT', body }),
  delete: <T>(path: string) => apiRequest<T>(path, { method: 'DELETE' }),
  upload: <T>(path: string, form: FormData) => apiRequest<T>(path, { method: 'POST', body: form }),
};

/** The text to show for any error: the translated message of its code. */
export function errorKey(error: unknown): string {
  if (isApiError(error)) return error.code;
  return 'internal_error';
}
