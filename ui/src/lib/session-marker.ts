// The session cookie is HttpOnly, so the page cannot see it. This marker
// remembers that this browser signed in, so a visitor who never did is not
// sent a `/auth/me` that can only answer 401.
const KEY = 'wayfare.signedIn';

export function hasSessionMarker() {
  try {
    return window.localStorage.getItem(KEY) === '1';
  } catch {
    return true;
  }
}

export function setSessionMarker(signedIn: boolean) {
  try {
    if (signedIn) window.localStorage.setItem(KEY, '1');
    else window.localStorage.removeItem(KEY);
  } catch {
    // private mode
  }
}
