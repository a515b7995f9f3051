import { describe, expect, it, vi } from 'vitest';
import { DriverDirectory, IDS_PER_READ, type NamedUser } from '../lib/driver-directory';

const ID = (n: number) => `0190a000-0000-7000-8000-${String(n).padStart(12, '0')}`;

describe("the console's driver directory", () => {
  it('reads the drivers asked for in batches of 100, once each, and names them', async () => {
    const read = vi.fn(async (ids: string[]): Promise<NamedUser[]> => ids.map((id) => ({ id, firstName: 'Dana', lastName: id.slice(-3), fleetadmin: id === ID(1) ? 'fleet-1' : null })));
    const learned = vi.fn();
    const directory = new DriverDirectory(read, learned);
    for (let n = 0; n < 150; n++) expect(directory.label(ID(n))).toBe(ID(n).slice(-8));
    expect(directory.pending()).toBe(true);
    await directory.flush();
    expect(read.mock.calls.map(([ids]) => ids.length)).toEqual([IDS_PER_READ, 50]);
    expect(learned).toHaveBeenCalledTimes(1);
    expect(directory.label(ID(7))).toBe('Dana 007');
    expect(directory.get(ID(1))?.fleet).toBe('fleet-1');
    expect(directory.get(ID(2))?.fleet).toBeNull();
    expect(directory.pending()).toBe(false);
    await directory.flush();
    expect(read).toHaveBeenCalledTimes(2);
  });

  it('remembers a driver it may not see as nameless, and asks again after a failed read only later', async () => {
    let clock = 0;
    let fail = true;
    const read = vi.fn(async (ids: string[]): Promise<NamedUser[]> => {
      if (fail) throw new Error('offline');
      return ids.filter((id) => id !== ID(9)).map((id) => ({ id, firstName: 'Sam' }));
    });
    const learned = vi.fn();
    const directory = new DriverDirectory(read, learned, 50, 30_000, () => clock);
    directory.get(ID(8));
    await directory.flush();
    expect(learned).not.toHaveBeenCalled();
    // Not asked again at once (no loop of failing reads)…
    expect(directory.get(ID(8))).toBeUndefined();
    expect(directory.pending()).toBe(false);
    // …but after a while.
    clock = 30_000;
    fail = false;
    directory.get(ID(8));
    directory.get(ID(9));
    await directory.flush();
    expect(directory.label(ID(8))).toBe('Sam');
    expect(directory.label(ID(9))).toBe(ID(9).slice(-8));
    expect(read).toHaveBeenCalledTimes(2);
  });
});
