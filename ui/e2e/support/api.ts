// The server's REST API straight from the test, for set-up a person would do
// on another screen (an admin changing the platform's settings).
import { baseUrl, latestCode } from './browser';

/** Signs in through the dev outbox; the session token. */
export async function apiSignIn(contact: string, server = baseUrl()): Promise<string> {
  const asked = Date.now() - 1000;
  await call('POST', '/auth/otp/request', null, { contact }, server);
  const code = await latestCode(contact, asked, server);
  const answer = (await call('POST', '/auth/otp/verify', null, { contact, code }, server)) as { token: string };
  return answer.token;
}

export async function call(method: string, path: string, token: string | null, body?: unknown, server = baseUrl()): Promise<unknown> {
  const response = await fetch(`${server}/api/v1${path}`, {
    method,
    headers: {
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return text ? JSON.parse(text) : null;
}
