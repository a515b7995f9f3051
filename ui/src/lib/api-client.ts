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

export const api = {
  get: <T>(path: string, query?: RequestOptions['query'], signal?: AbortSignal) => apiRequest<T>(path, { query, signal }),
  post: <T>(path: string, body: unknown = {}) => apiRequest<T>(path, { method: 'POST', body }),
  patch: <T>(path: string, body: unknown) => apiRequest<T>(path, { method: 'PATCH', body }),
  upload: <T>(path: string, form: FormData) => apiRequest<T>(path, { method: 'POST', body: form }),
};

/** The text to show for any error: the translated message of its code. */
export function errorKey(error: unknown): string {
  if (isApiError(error)) return error.code;
  return 'internal_error';
}
