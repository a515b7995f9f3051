import { describe, expect, it, vi } from 'vitest';
import type { LocationPayload } from '@/lib/socket';
import { PositionOutbox, type SendOutcome } from '../lib/position-outbox';

const fix = (at: number): LocationPayload => ({ lat: 39.29 + at / 1e6, lng: -76.6, accuracy: 5, at });

describe('the position outbox', () => {
  it('sends fixes one at a time, oldest first', async () => {
    const sent: number[] = [];
    let inFlight = 0;
    const outbox = new PositionOutbox({
      send: async (payload) => {
        inFlight++;
        expect(inFlight).toBe(1);
        await new Promise((resolve) => setTimeout(resolve, 1));
        sent.push(payload.at ?? 0);
        inFlight--;
        return 'sent';
      },
    });
    void outbox.push(fix(1));
    void outbox.push(fix(2));
    await outbox.push(fix(3));
    expect(sent).toEqual([1, 2, 3]);
    expect(outbox.size).toBe(0);
  });

  it('keeps what the network did not take and sends it in order once back', async () => {
    let up = false;
    const sent: number[] = [];
    const sizes: number[] = [];
    const outbox = new PositionOutbox({
      send: async (payload): Promise<SendOutcome> => {
        if (!up) return 'failed';
        sent.push(payload.at ?? 0);
        return 'sent';
      },
      onSizeChange: (size) => sizes.push(size),
    });
    for (let at = 1; at <= 10; at++) await outbox.push(fix(at));
    expect(outbox.size).toBe(10);
    expect(sent).toEqual([]);
    up = true;
    await outbox.push(fix(11));
    expect(sent).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    expect(sizes.at(-1)).toBe(0);
  });

  it('does not try while the browser says it is offline', async () => {
    const send = vi.fn(async (): Promise<SendOutcome> => 'sent');
    let online = false;
    const outbox = new PositionOutbox({ send, isOnline: () => online });
    await outbox.push(fix(1));
    expect(send).not.toHaveBeenCalled();
    online = true;
    await outbox.flush();
    expect(send).toHaveBeenCalledTimes(1);
  });

  it('drops a fix the server refused and goes on with the next', async () => {
    const sent: number[] = [];
    const outbox = new PositionOutbox({
      send: async (payload) => {
        if (payload.at === 1) return 'refused';
        sent.push(payload.at ?? 0);
        return 'sent';
      },
    });
    void outbox.push(fix(1));
    await outbox.push(fix(2));
    expect(sent).toEqual([2]);
  });

  it('keeps only the newest fixes past its limit', async () => {
    const outbox = new PositionOutbox({ send: async () => 'failed', limit: 3 });
    for (let at = 1; at <= 5; at++) await outbox.push(fix(at));
    expect(outbox.size).toBe(3);
    let first = 0;
    const replay = new PositionOutbox({
      send: async (payload) => {
        first ||= payload.at ?? 0;
        return 'sent';
      },
      limit: 3,
    });
    for (let at = 1; at <= 5; at++) void replay.push(fix(at));
    await replay.flush();
    expect(first).toBe(1);
  });

  it('forgets what waits when cleared', async () => {
    const outbox = new PositionOutbox({ send: async () => 'failed' });
    await outbox.push(fix(1));
    outbox.clear();
    expect(outbox.size).toBe(0);
  });
});
