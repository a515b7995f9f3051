import { afterEach, describe, expect, it, vi } from 'vitest';
import { registerServiceWorker } from '../service-worker';

describe('the service worker', () => {
  afterEach(() => {
    Reflect.deleteProperty(navigator, 'serviceWorker');
  });

  it('is registered by the built app, so it installs and opens like an app', () => {
    const register = vi.fn(() => Promise.resolve({}));
    Object.defineProperty(navigator, 'serviceWorker', { value: { register }, configurable: true });
    expect(registerServiceWorker({ production: true })).toBe(true);
    expect(register).toHaveBeenCalledWith('/sw.js');
  });

  it('is not registered by the dev server', () => {
    const register = vi.fn(() => Promise.resolve({}));
    Object.defineProperty(navigator, 'serviceWorker', { value: { register }, configurable: true });
    expect(registerServiceWorker({ production: false })).toBe(false);
    expect(register).not.toHaveBeenCalled();
  });
});
