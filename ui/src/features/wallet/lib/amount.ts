/** The most any one wallet move may be (docs/api.md: credits, withdraws and top-ups). */
export const MAX_WALLET_MOVE = 1_000_000;

/**
 * An amount typed into the wallet's forms, as plain decimal text for the
 * server, or null when the server would refuse it with `invalid_amount`: a
 * positive number with no more than `decimal` decimals (a comma is read as
 * the decimal point), at most 1,000,000. Without `decimal`, two, as money is formatted.
 */
export function parseWalletAmount(typed: string, decimal = 2): string | null {
  const text = typed.trim().replace(',', '.');
  const match = /^(\d+)(?:\.(\d+))?$/.exec(text);
  if (!match) return null;
  if ((match[2] ?? '').replace(/0+$/, '').length > decimal) return null;
  const value = Number(text);
  if (!(value > 0) || value > MAX_WALLET_MOVE) return null;
  return String(value);
}
