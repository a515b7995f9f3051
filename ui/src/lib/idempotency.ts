/** A fresh key for a money write the server must apply once: made when the
 * form (or dialog) opens and kept until the write succeeds, so a retry after
 * a lost answer never pays twice. */
export function newIdempotencyKey(): string {
  return globalThis.crypto?.randomUUID ? globalThis.crypto.randomUUID() : `${Date.now()}-${Math.random()}`;
}
