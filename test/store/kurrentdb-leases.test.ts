import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { KurrentLeases, type LeaseStreams } from '../../src/store/kurrentdb-leases.js';
import { LEASE_CLOCK_SKEW_MS, type LeaseRecord } from '../../src/store/kurrentdb-mapping.js';
import type { Lease } from '../../src/store/types.js';

/**
 * The lease machinery of the KurrentDB adapter on lease streams held in memory with the same optimistic
 * concurrency as KurrentDB's (an append names the revision it expects). Several KurrentLeases on one
 * set of streams are several processes on one log; time is vitest's fake clock. On a real server these
 * run through the store contract (kurrentdb.test.ts, when KURRENTDB_URL is set).
 */
class MemoryLeaseStreams implements LeaseStreams {
  readonly records = new Map<string, LeaseRecord[]>();
  readonly trimmed = new Set<string>();

  async last(stream: string) {
    const records = this.records.get(stream) ?? [];
    const record = records.at(-1);
    return record === undefined ? undefined : { revision: records.length - 1, record };
  }

  async append(stream: string, record: LeaseRecord, expected: number) {
    const records = this.records.get(stream) ?? [];
    if (records.length - 1 !== expected) return false;
    records.push(record);
    this.records.set(stream, records);
    return true;
  }

  async created(stream: string) {
    this.trimmed.add(stream);
  }
}

/** One process's view of the streams, whose connection can break (appends throw) or hang. */
function connection(streams: MemoryLeaseStreams) {
  const state = { broken: false, hang: undefined as Promise<void> | undefined };
  const view: LeaseStreams = {
    last: (stream) => streams.last(stream),
    append: async (stream, record, expected) => {
      if (state.hang) await state.hang;
      if (state.broken) throw new Error('connection refused');
      return streams.append(stream, record, expected);
    },
    created: (stream) => streams.created(stream),
  };
  return { view, state };
}

const TTL = 15_000;
const stream = (name: string) => `ns~lease-${name}`;
const settled = (lease: Lease) => {
  let done = false;
  void lease.lost.then(() => {
    done = true;
  });
  return () => done;
};

describe('KurrentDB leases (lease streams with optimistic concurrency)', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: 1_000_000 });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('is exclusive among processes until released; a new lease stream is trimmed', async () => {
    const streams = new MemoryLeaseStreams();
    const a = new KurrentLeases(streams, stream);
    const b = new KurrentLeases(streams, stream);
    const held = (await a.take('scheduler')) as Lease;
    expect(held.name).toBe('scheduler');
    expect(await b.take('scheduler')).toBeUndefined();
    expect(await a.take('scheduler')).toBeUndefined();
    expect(streams.trimmed).toEqual(new Set(['ns~lease-scheduler']));
    await held.release();
    await held.release();
    expect((await streams.last(stream('scheduler')))?.record.kind).toBe('released');
    const taken = (await b.take('scheduler')) as Lease;
    expect(taken).toBeDefined();
    await taken.release();
  });

  it('a holder keeps its lease by renewing it: no one takes it long after the first TTL', async () => {
    const streams = new MemoryLeaseStreams();
    const a = new KurrentLeases(streams, stream);
    const b = new KurrentLeases(streams, stream);
    const held = (await a.take('x')) as Lease;
    const lost = settled(held);
    await vi.advanceTimersByTimeAsync(TTL * 4);
    expect(await b.take('x')).toBeUndefined();
    expect(lost()).toBe(false);
    // One renewal every third of the TTL.
    expect(streams.records.get(stream('x'))?.length).toBe(1 + 12);
    await held.release();
  });

  it('a holder that dies frees its lease after the TTL and the allowance for clocks, not before', async () => {
    const streams = new MemoryLeaseStreams();
    const doomed = connection(streams);
    const a = new KurrentLeases(doomed.view, stream);
    const b = new KurrentLeases(streams, stream);
    await a.take('instance:a');
    const diedAt = Date.now();
    // Dead: nothing it does reaches the server any more.
    doomed.state.broken = true;
    await vi.advanceTimersByTimeAsync(TTL - 1);
    expect(await b.take('instance:a')).toBeUndefined();
    // The last renewal it wrote was at the take: free TTL + skew later.
    await vi.advanceTimersByTimeAsync(LEASE_CLOCK_SKEW_MS);
    expect(Date.now() - diedAt).toBe(TTL + LEASE_CLOCK_SKEW_MS - 1);
    expect(await b.take('instance:a')).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    const taken = await b.take('instance:a');
    expect(taken).toBeDefined();
    await taken?.release();
  });

  it('`lost` settles by the expiry when renewals cannot reach the server, before anyone may take it', async () => {
    const streams = new MemoryLeaseStreams();
    const cut = connection(streams);
    const a = new KurrentLeases(cut.view, stream);
    const held = (await a.take('x')) as Lease;
    const lost = settled(held);
    const until = Date.now() + TTL;
    cut.state.broken = true;
    await vi.advanceTimersByTimeAsync(TTL - 1);
    expect(lost()).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(Date.now()).toBe(until);
    expect(lost()).toBe(true);
    // No one else could take it yet: the allowance for clocks is still running.
    expect(await new KurrentLeases(streams, stream).take('x')).toBeUndefined();
  });

  it('`lost` settles by the expiry also when a renewal hangs, and the lease is released if it commits late', async () => {
    const streams = new MemoryLeaseStreams();
    const slow = connection(streams);
    const a = new KurrentLeases(slow.view, stream);
    const held = (await a.take('x')) as Lease;
    const lost = settled(held);
    let resume: () => void = () => undefined;
    slow.state.hang = new Promise<void>((resolve) => {
      resume = resolve;
    });
    await vi.advanceTimersByTimeAsync(TTL);
    expect(lost()).toBe(true);
    slow.state.hang = undefined;
    resume();
    await vi.advanceTimersByTimeAsync(0);
    expect((await streams.last(stream('x')))?.record.kind).toBe('released');
    expect(await new KurrentLeases(streams, stream).take('x')).toBeDefined();
  });

  it('`lost` settles at the next renewal when another process took the lease (a clock far ahead)', async () => {
    const streams = new MemoryLeaseStreams();
    const a = new KurrentLeases(streams, stream);
    const ahead = new KurrentLeases(streams, stream, { now: () => Date.now() + TTL + LEASE_CLOCK_SKEW_MS });
    const held = (await a.take('x')) as Lease;
    const lost = settled(held);
    const other = (await ahead.take('x')) as Lease;
    expect(other).toBeDefined();
    await vi.advanceTimersByTimeAsync(TTL / 3);
    expect(lost()).toBe(true);
    // The loser writes nothing more: the lease stays with the other process.
    await held.release();
    expect((await streams.last(stream('x')))?.record).toMatchObject({ kind: 'held' });
    await other.release();
  });

  it('a release while a renewal is in flight waits for it, and frees the lease', async () => {
    const streams = new MemoryLeaseStreams();
    const slow = connection(streams);
    const a = new KurrentLeases(slow.view, stream);
    const held = (await a.take('x')) as Lease;
    let resume: () => void = () => undefined;
    slow.state.hang = new Promise<void>((resolve) => {
      resume = resolve;
    });
    await vi.advanceTimersByTimeAsync(TTL / 3);
    const released = held.release();
    slow.state.hang = undefined;
    resume();
    await released;
    expect((await streams.last(stream('x')))?.record.kind).toBe('released');
    expect(streams.records.get(stream('x'))?.map((r) => r.kind)).toEqual(['held', 'held', 'released']);
  });

  it('closing the store releases its leases at once and settles their `lost`', async () => {
    const streams = new MemoryLeaseStreams();
    const a = new KurrentLeases(streams, stream);
    const one = (await a.take('one')) as Lease;
    const two = (await a.take('two')) as Lease;
    const released = (await a.take('three')) as Lease;
    await released.release();
    await a.endAll();
    await one.lost;
    await two.lost;
    // Released, and nothing renews after close.
    await vi.advanceTimersByTimeAsync(TTL);
    expect(streams.records.get(stream('one'))?.map((r) => r.kind)).toEqual(['held', 'released']);
    const b = new KurrentLeases(streams, stream);
    for (const name of ['one', 'two', 'three']) expect(await b.take(name), name).toBeDefined();
  });

  it('a lease taken while the store closes ends with the others', async () => {
    const streams = new MemoryLeaseStreams();
    const slow = connection(streams);
    const a = new KurrentLeases(slow.view, stream);
    let resume: () => void = () => undefined;
    slow.state.hang = new Promise<void>((resolve) => {
      resume = resolve;
    });
    const taking = a.take('late');
    const closing = a.endAll();
    slow.state.hang = undefined;
    resume();
    await closing;
    const lease = (await taking) as Lease;
    await lease.lost;
    expect(streams.records.get(stream('late'))?.map((r) => r.kind)).toEqual(['held', 'released']);
  });
});
