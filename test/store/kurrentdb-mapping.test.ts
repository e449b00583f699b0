import {
  ANY,
  StreamDeletedError as ClientStreamDeletedError,
  StreamNotFoundError as ClientStreamNotFoundError,
  NO_STREAM,
  STREAM_EXISTS,
  StreamTombstonedError,
  TransactionMaxSizeExceededError,
  UnsupportedError,
  WrongExpectedVersionError,
} from '@kurrent/kurrentdb-client';
import { describe, expect, it } from 'vitest';
import { SYSTEM_STREAM, UnsupportedStoreError } from '../../src/store/index.js';
import {
  afterFailedRenewal,
  classifyAppendError,
  comparePositions,
  decodeEventBody,
  decodeLeaseRecord,
  decodeLogEntry,
  encodeEventBody,
  encodeLeaseRecord,
  encodeLogEntry,
  fromCurrentState,
  importedStreamState,
  importSegments,
  isKurrentScheme,
  isStreamDeleted,
  isStreamNotFound,
  kurrentNames,
  LEASE_CLOCK_SKEW_MS,
  LEASE_HELD,
  LEASE_RELEASED,
  LEASE_TTL_MS,
  lastWhere,
  leaseIsFree,
  logState,
  parseKurrentUrl,
  planStreamRead,
  renewLease,
  takeLease,
  toStreamState,
} from '../../src/store/kurrentdb-mapping.js';
import { serializeEventBody } from '../../src/store/validate.js';

/**
 * The parts of the KurrentDB adapter that need no server. The adapter against a real KurrentDB is
 * kurrentdb.test.ts (the shared contract, when KURRENTDB_URL is set).
 */
describe('KurrentDB store URLs', () => {
  it('passes the client its parameters and keeps namespace for itself', () => {
    expect(parseKurrentUrl('kurrentdb://localhost:2113?tls=false')).toEqual({
      connectionString: 'kurrentdb://localhost:2113?tls=false',
      namespace: 'chronicle',
      location: 'kurrentdb://localhost:2113?tls=false&namespace=chronicle',
    });
    expect(
      parseKurrentUrl('kurrentdb://localhost:2113?tls=false&namespace=ops_2&tlsVerifyCert=false'),
    ).toEqual({
      connectionString: 'kurrentdb://localhost:2113?tls=false&tlsVerifyCert=false',
      namespace: 'ops_2',
      location: 'kurrentdb://localhost:2113?tls=false&tlsVerifyCert=false&namespace=ops_2',
    });
    expect(parseKurrentUrl('kurrentdb://db:2113').connectionString).toBe('kurrentdb://db:2113');
  });

  it('takes a cluster of several hosts, which WHATWG URL parsing cannot', () => {
    const url = 'kurrentdb://node1:2113,node2:2113,node3:2113?tls=false&nodePreference=leader';
    expect(() => new URL(url).host).toThrow();
    const parsed = parseKurrentUrl(url);
    expect(parsed.connectionString).toBe(url);
    expect(parsed.location).toBe(`${url}&namespace=chronicle`);
  });

  it('spells esdb:// (deprecated by the client, which warns) as kurrentdb://, discovery included', () => {
    expect(parseKurrentUrl('esdb://localhost:2113?tls=false').connectionString).toBe(
      'kurrentdb://localhost:2113?tls=false',
    );
    expect(parseKurrentUrl('esdb+discover://cluster.dns:2113').connectionString).toBe(
      'kurrentdb+discover://cluster.dns:2113',
    );
    expect(parseKurrentUrl('KurrentDB://h:1').connectionString).toBe('kurrentdb://h:1');
    for (const scheme of ['kurrentdb', 'esdb', 'kdb', 'kurrent', 'kurrentdb+discover', 'ESDB'])
      expect(isKurrentScheme(scheme)).toBe(true);
    for (const scheme of ['postgres', 'level', 'esdbx', 'http']) expect(isKurrentScheme(scheme)).toBe(false);
  });

  it('hides the password in location but keeps it in the connection string', () => {
    const parsed = parseKurrentUrl('kurrentdb://admin:changeit@db1:2113,db2:2113?tls=true');
    expect(parsed.connectionString).toBe('kurrentdb://admin:changeit@db1:2113,db2:2113?tls=true');
    expect(parsed.location).toBe('kurrentdb://admin:***@db1:2113,db2:2113?tls=true&namespace=chronicle');
    expect(parsed.location).not.toContain('changeit');
    expect(parseKurrentUrl('kurrentdb://admin@db:2113').location).toBe(
      'kurrentdb://admin@db:2113?namespace=chronicle',
    );
  });

  it('location opens the same log again', () => {
    const first = parseKurrentUrl('esdb://db:2113?namespace=team_a&tls=false');
    const again = parseKurrentUrl(first.location);
    expect(again).toEqual(first);
  });

  it('refuses other schemes, missing hosts and namespaces that could break stream names', () => {
    for (const url of [
      'postgres://x',
      'kurrentdb:/x',
      'kurrentdb://',
      'kurrentdb://?tls=false',
      'kurrentdb://user:pw@',
      // Object.prototype property names: an unknown scheme like any other.
      'constructor://h:2113',
      'CONSTRUCTOR://h:2113',
    ])
      expect(() => parseKurrentUrl(url), url).toThrow(UnsupportedStoreError);
    for (const namespace of ['', 'Upper', 'with-dash', 'a:b', 'a~b', '9lives', 'x'.repeat(41), '$sys'])
      expect(
        () => parseKurrentUrl(`kurrentdb://h:2113?namespace=${encodeURIComponent(namespace)}`),
        namespace,
      ).toThrow(UnsupportedStoreError);
    expect(parseKurrentUrl(`kurrentdb://h:2113?namespace=${'x'.repeat(40)}`).namespace).toHaveLength(40);
  });
});

describe('KurrentDB stream names', () => {
  const names = kurrentNames('chronicle');

  it('puts every stream of the log behind the namespace, our $streams included', () => {
    expect(names.events('order-1')).toBe('chronicle:order-1');
    expect(names.events(SYSTEM_STREAM)).toBe('chronicle:$streams');
    // Not a KurrentDB system stream: those are the names that start with "$".
    expect(names.events(SYSTEM_STREAM).startsWith('$')).toBe(false);
    expect(names.log).toBe('chronicle~log');
    expect(names.snapshot('stream-catalog')).toBe('chronicle~snapshot:stream-catalog');
  });

  it('maps names back one to one, and nothing that is not an event stream of this log', () => {
    const streams = [
      'order-1',
      SYSTEM_STREAM,
      'a$',
      'with/slash:colon',
      'chronicle:nested',
      'é 🎉',
      ' ',
      'r:order-1',
    ];
    for (const stream of streams) expect(names.streamOf(names.events(stream))).toBe(stream);
    expect(new Set(streams.map(names.events)).size).toBe(streams.length);
    for (const physical of [
      names.log,
      names.snapshot('x'),
      '$streams',
      '$$chronicle:order-1',
      'other:order-1',
      'chronicle2:order-1',
      'chronicle',
    ])
      expect(names.streamOf(physical), physical).toBeUndefined();
    // Two namespaces never share a stream, even when one is a prefix of the other.
    const other = kurrentNames('chronicle2');
    expect(other.streamOf(names.events('x'))).toBeUndefined();
    expect(names.streamOf(other.events('x'))).toBeUndefined();
  });

  it('the log, snapshot and lease streams cannot be named by any stream of ours', () => {
    // Event streams are `<ns>:` + name; the others are `<ns>~`: no name reaches them.
    expect(names.log.startsWith(names.eventPrefix)).toBe(false);
    expect(names.snapshot('a').startsWith(names.eventPrefix)).toBe(false);
    expect(names.lease('stacks-instance:1')).toBe('chronicle~lease-stacks-instance:1');
    expect(names.streamOf(names.lease('x'))).toBeUndefined();
    // The position-log subscription filters on the log's name as a prefix: leases must not pass it.
    expect(names.lease('og').startsWith(names.log)).toBe(false);
    expect(names.snapshot('x').startsWith(names.log)).toBe(false);
    expect(() => kurrentNames('Bad-Name')).toThrow(UnsupportedStoreError);
  });
});

describe('KurrentDB stored bytes', () => {
  it('an event body carries its position in front of the body validate.ts made, and reads back whole', () => {
    const body = serializeEventBody(
      { type: 'ItemAdded', data: { sku: 'é 漢字 🎉', n: [1, null] }, metadata: { requestId: 'r' } },
      '2024-01-02T03:04:05.000Z',
    );
    const bytes = encodeEventBody(42, body);
    expect(bytes.toString()).toBe(`{"p":42,${body.slice(1)}`);
    expect(decodeEventBody('order-1', 3, bytes)).toEqual({
      stream: 'order-1',
      revision: 3,
      position: 42,
      type: 'ItemAdded',
      data: { sku: 'é 漢字 🎉', n: [1, null] },
      metadata: { requestId: 'r', at: '2024-01-02T03:04:05.000Z' },
    });
  });

  it('keeps any JSON as data, also null, strings and arrays', () => {
    for (const data of [null, 'a string', 42, [], { unicode: '\u2028"\\' }]) {
      const bytes = encodeEventBody(1, serializeEventBody({ type: 'T', data }, '2024-01-01T00:00:00.000Z'));
      expect(decodeEventBody('s', 0, bytes).data).toEqual(data);
    }
  });

  it('reads a body the client already parsed (a server that labels the record JSON) and bytes in a view', () => {
    const parsed = { p: 7, t: 'T', d: { a: 1 }, m: { at: 'x' } };
    expect(decodeEventBody('s', 0, parsed).position).toBe(7);
    const bytes = encodeEventBody(9, serializeEventBody({ type: 'T', data: 1 }, 'x'));
    const padded = Buffer.concat([Buffer.from('garbage'), bytes]);
    const view = new Uint8Array(padded.buffer, padded.byteOffset + 7, bytes.length);
    expect(decodeEventBody('s', 0, view).position).toBe(9);
  });

  it('refuses bytes that are not a chronicle event instead of skipping them', () => {
    for (const data of [
      Buffer.from('{"t":"T","d":1,"m":{}}'),
      Buffer.from('{"p":0,"t":"T","d":1,"m":{}}'),
      Buffer.from('{"p":1.5,"t":"T","d":1,"m":{}}'),
      Buffer.from('{"p":1,"d":1,"m":{}}'),
      Buffer.from('{"p":1,"t":"T","d":1,"m":null}'),
      Buffer.from('null'),
      { p: '1', t: 'T', d: 1, m: {} },
    ])
      expect(() => decodeEventBody('s', 4, data)).toThrow(/event 4 of stream "s"/);
    expect(() => decodeEventBody('s', 0, Buffer.from('{not json'))).toThrow(SyntaxError);
  });

  it('position-log entries round-trip and damaged ones are refused', () => {
    expect(encodeLogEntry({ first: 5, last: 7 }).toString()).toBe('{"f":5,"l":7}');
    expect(decodeLogEntry(encodeLogEntry({ first: 5, last: 7 }))).toEqual({ first: 5, last: 7 });
    expect(decodeLogEntry({ f: 1, l: 1 })).toEqual({ first: 1, last: 1 });
    for (const bad of [{ f: 0, l: 1 }, { f: 3, l: 2 }, { f: 1 }, null, { f: '1', l: 2 }])
      expect(() => decodeLogEntry(Buffer.from(JSON.stringify(bad)))).toThrow(/position-log entry/);
  });
});

describe('KurrentDB expected revisions and stream states', () => {
  it('maps our expected revision to the client stream state', () => {
    expect(toStreamState('any')).toBe(ANY);
    expect(toStreamState('no_stream')).toBe(NO_STREAM);
    expect(toStreamState('stream_exists')).toBe(STREAM_EXISTS);
    expect(toStreamState(0)).toBe(0n);
    expect(toStreamState(41)).toBe(41n);
    expect(toStreamState(Number.MAX_SAFE_INTEGER)).toBe(BigInt(Number.MAX_SAFE_INTEGER));
  });

  it('the position log is expected absent before its first entry, then at its revision', () => {
    expect(logState(-1)).toBe(NO_STREAM);
    expect(logState(0)).toBe(0n);
    expect(logState(12)).toBe(12n);
  });

  it('maps the actual state of a conflict back: revision, no stream, or deleted', () => {
    expect(fromCurrentState(NO_STREAM)).toBeUndefined();
    expect(fromCurrentState(-1n)).toBeUndefined();
    expect(fromCurrentState(0n)).toBe(0);
    expect(fromCurrentState(17n)).toBe(17);
    expect(fromCurrentState(-5n)).toBe('deleted');
    expect(fromCurrentState(-6n)).toBe('deleted');
  });
});

describe('KurrentDB client errors', () => {
  const log = 'chronicle~log';
  const conflict = (streamName: string, current: bigint | 'no_stream') =>
    new WrongExpectedVersionError(undefined, { streamName, expected: 3n, current });

  it('a conflict on the position log is a lost race, not the caller’s conflict', () => {
    expect(classifyAppendError(conflict(log, 9n), log)).toEqual({ kind: 'log_conflict' });
  });

  it('a conflict on the events’ stream is the caller’s, with the actual revision', () => {
    expect(classifyAppendError(conflict('chronicle:s', 2n), log)).toEqual({ kind: 'conflict', actual: 2 });
    expect(classifyAppendError(conflict('chronicle:s', 'no_stream'), log)).toEqual({
      kind: 'conflict',
      actual: undefined,
    });
    expect(classifyAppendError(conflict('chronicle:s', -6n), log)).toEqual({ kind: 'deleted' });
  });

  it('deleted, tombstoned, too large and unsupported are told apart from the rest', () => {
    expect(
      classifyAppendError(new StreamTombstonedError(undefined as never, { stream: 'chronicle:s' }), log),
    ).toEqual({
      kind: 'deleted',
    });
    expect(classifyAppendError(ClientStreamDeletedError.fromStreamName('chronicle:s'), log)).toEqual({
      kind: 'deleted',
    });
    expect(
      classifyAppendError(
        new TransactionMaxSizeExceededError(undefined as never, { size: 9, maxSize: 1 }),
        log,
      ).kind,
    ).toBe('too_large');
    const unsupported = classifyAppendError(new UnsupportedError('multiStreamAppend', '25.1'), log);
    expect(unsupported.kind).toBe('unsupported');
    const network = new Error('connect ECONNREFUSED');
    expect(classifyAppendError(network, log)).toEqual({ kind: 'other', error: network });
    expect(classifyAppendError(undefined, log)).toEqual({ kind: 'other', error: undefined });
  });

  it('recognises not-found and deleted on reads', () => {
    expect(isStreamNotFound(new ClientStreamNotFoundError(undefined, 'x'))).toBe(true);
    expect(isStreamNotFound(new Error('x'))).toBe(false);
    expect(isStreamDeleted(ClientStreamDeletedError.fromStreamName('x'))).toBe(true);
    expect(isStreamDeleted(new StreamTombstonedError(undefined as never, { stream: 'x' }))).toBe(true);
    expect(isStreamDeleted(new ClientStreamNotFoundError(undefined, 'x'))).toBe(false);
  });
});

describe('KurrentDB stream reads', () => {
  it('plans readStream the way the port reads', () => {
    const plan = (options: Parameters<typeof planStreamRead>[0]) => planStreamRead(options);
    expect(plan({})).toEqual({
      direction: 'forwards',
      from: 'start',
      maxCount: undefined,
      clampToLast: false,
    });
    expect(plan({ from: 'start', maxCount: 2 })).toEqual({
      direction: 'forwards',
      from: 'start',
      maxCount: 2,
      clampToLast: false,
    });
    expect(plan({ from: 3 })).toMatchObject({ direction: 'forwards', from: 3 });
    expect(plan({ from: -2 })).toMatchObject({ direction: 'forwards', from: 'start' });
    // Forwards from the end: the last event alone.
    expect(plan({ from: 'end' })).toEqual({
      direction: 'backwards',
      from: 'end',
      maxCount: 1,
      clampToLast: false,
    });
    expect(plan({ direction: 'backwards' })).toMatchObject({ direction: 'backwards', from: 'end' });
    expect(plan({ direction: 'backwards', from: 'start' })).toMatchObject({
      direction: 'backwards',
      from: 'end',
    });
    expect(plan({ direction: 'backwards', from: 100, maxCount: 2 })).toEqual({
      direction: 'backwards',
      from: 100,
      maxCount: 2,
      clampToLast: true,
    });
    expect(plan({ direction: 'backwards', from: -1 })).toBeUndefined();
    expect(plan({ maxCount: 0 })).toBeUndefined();
    expect(plan({ direction: 'backwards', maxCount: 0 })).toBeUndefined();
  });

  it('lastWhere finds the last index that holds, in O(log n) probes', async () => {
    const firsts = [1, 4, 5, 9, 10, 20];
    const probes: number[] = [];
    const entryFor = (position: number) =>
      lastWhere(0, firsts.length - 1, (i) => {
        probes.push(i);
        return (firsts[i] as number) <= position;
      });
    expect(await entryFor(1)).toBe(0);
    expect(await entryFor(3)).toBe(0);
    expect(await entryFor(4)).toBe(1);
    expect(await entryFor(8)).toBe(2);
    expect(await entryFor(19)).toBe(4);
    expect(await entryFor(500)).toBe(5);
    expect(await entryFor(0)).toBe(-1);
    expect(await lastWhere(0, -1, () => true)).toBe(-1);
    // One million entries: about 20 probes, not a scan.
    expect(await lastWhere(0, 999_999, async (i) => i * 3 + 1 <= 1_234_567)).toBe(411_522);
    let count = 0;
    await lastWhere(0, 999_999, (i) => {
      count++;
      return i <= 777;
    });
    expect(count).toBeLessThanOrEqual(21);
  });

  it('orders $all positions by commit, then prepare', () => {
    expect(comparePositions({ commit: 1n, prepare: 9n }, { commit: 2n, prepare: 0n })).toBe(-1);
    expect(comparePositions({ commit: 2n, prepare: 3n }, { commit: 2n, prepare: 1n })).toBe(1);
    expect(comparePositions({ commit: 2n, prepare: 3n }, { commit: 2n, prepare: 3n })).toBe(0);
  });
});

describe('KurrentDB imports', () => {
  const sized = (streams: string) => [...streams].map((stream) => ({ stream, bytes: 10 }));
  const shape = (segments: ReturnType<typeof importSegments>) =>
    segments.map((groups) => groups.map((g) => `${g.stream}${g.start}-${g.end}`).join(' '));

  it('keeps the order: a segment ends where a stream comes back after another one', () => {
    expect(shape(importSegments(sized('aabbbc'), 1_000))).toEqual(['a0-2 b2-5 c5-6']);
    expect(shape(importSegments(sized('abab'), 1_000))).toEqual(['a0-1 b1-2', 'a2-3 b3-4']);
    expect(shape(importSegments(sized('abca'), 1_000))).toEqual(['a0-1 b1-2 c2-3', 'a3-4']);
    expect(shape(importSegments(sized('aaaa'), 1_000))).toEqual(['a0-4']);
    expect(importSegments([], 1_000)).toEqual([]);
  });

  it('every event lands in exactly one group, in order, and no segment names a stream twice', () => {
    const streams = 'abacabbbcddadcbba';
    const segments = importSegments(sized(streams), 35);
    const covered = segments
      .flat()
      .flatMap((g) => Array.from({ length: g.end - g.start }, (_, i) => g.start + i));
    expect(covered).toEqual([...streams].map((_, i) => i));
    for (const groups of segments) {
      expect(new Set(groups.map((g) => g.stream)).size).toBe(groups.length);
      for (const g of groups) for (let i = g.start; i < g.end; i++) expect(streams[i]).toBe(g.stream);
      const bytes = groups.reduce((sum, g) => sum + (g.end - g.start) * 10, 0);
      expect(bytes).toBeLessThanOrEqual(35);
    }
  });

  it('splits at the byte limit, but never below one event', () => {
    const events = [
      { stream: 'a', bytes: 600 },
      { stream: 'a', bytes: 600 },
      { stream: 'b', bytes: 5_000 },
      { stream: 'c', bytes: 100 },
    ];
    expect(shape(importSegments(events, 1_000))).toEqual(['a0-1', 'a1-2', 'b2-3', 'c3-4']);
    expect(shape(importSegments(events, 10_000))).toEqual(['a0-2 b2-3 c3-4']);
  });

  it('an imported event expects its stream at the revision before it', () => {
    expect(importedStreamState(0)).toBe(NO_STREAM);
    expect(importedStreamState(1)).toBe(0n);
    expect(importedStreamState(42)).toBe(41n);
  });
});

describe('KurrentDB leases', () => {
  it('stores who holds a lease until when, and reads it back; refuses records that are not ours', () => {
    const held = { kind: 'held', holder: 'h-1', until: 1_700_000_000_000 } as const;
    const released = { kind: 'released', holder: 'h-1' } as const;
    const a = encodeLeaseRecord(held);
    const b = encodeLeaseRecord(released);
    expect(a.type).toBe(LEASE_HELD);
    expect(b.type).toBe(LEASE_RELEASED);
    expect(decodeLeaseRecord(a.type, new Uint8Array(a.data))).toEqual(held);
    expect(decodeLeaseRecord(b.type, b.data)).toEqual(released);
    // A server that labels the bytes JSON hands them over parsed.
    expect(decodeLeaseRecord(LEASE_HELD, { holder: 'x', until: 5 })).toEqual({
      kind: 'held',
      holder: 'x',
      until: 5,
    });
    expect(() => decodeLeaseRecord(LEASE_HELD, { holder: 'x' })).toThrow(/damaged/);
    expect(() => decodeLeaseRecord('Other', { holder: 'x', until: 5 })).toThrow(/damaged/);
    expect(() => decodeLeaseRecord(LEASE_RELEASED, {})).toThrow(/damaged/);
  });

  it('is free when never taken, released, or past its expiry plus the allowance for clocks', () => {
    const held = { kind: 'held', holder: 'h', until: 10_000 } as const;
    expect(leaseIsFree(undefined, 0)).toBe(true);
    expect(leaseIsFree({ kind: 'released', holder: 'h' }, 0)).toBe(true);
    expect(leaseIsFree(held, 9_999)).toBe(false);
    // At its expiry the holder has given it up, but another clock may be behind: wait the allowance.
    expect(leaseIsFree(held, 10_000)).toBe(false);
    expect(leaseIsFree(held, 10_000 + LEASE_CLOCK_SKEW_MS - 1)).toBe(false);
    expect(leaseIsFree(held, 10_000 + LEASE_CLOCK_SKEW_MS)).toBe(true);
    expect(leaseIsFree(held, 10_500, 0)).toBe(true);
  });

  it('takes a free lease for the TTL, and nothing when it is held', () => {
    expect(takeLease(undefined, 'me', 1_000)).toEqual({
      kind: 'held',
      holder: 'me',
      until: 1_000 + LEASE_TTL_MS,
    });
    expect(takeLease({ kind: 'released', holder: 'other' }, 'me', 1_000, 500)).toEqual({
      kind: 'held',
      holder: 'me',
      until: 1_500,
    });
    expect(takeLease({ kind: 'held', holder: 'other', until: 2_000 }, 'me', 1_000)).toBeUndefined();
    // A lease counts by its record, not by who asks: the holder's own second take is refused too.
    expect(takeLease({ kind: 'held', holder: 'me', until: 2_000 }, 'me', 1_000)).toBeUndefined();
    expect(renewLease('me', 5_000, 300)).toEqual({ kind: 'held', holder: 'me', until: 5_300 });
  });

  it('a failed renewal is a loss on a conflict or past the expiry, and tried again before it', () => {
    expect(afterFailedRenewal(true, 0, 10_000)).toBe('lost');
    expect(afterFailedRenewal(false, 9_999, 10_000)).toBe('retry');
    expect(afterFailedRenewal(false, 10_000, 10_000)).toBe('lost');
  });
});

describe('docker-compose.yml store URLs', () => {
  it('the KurrentDB cluster and PostgreSQL URLs the services are started with are valid store URLs', async () => {
    const { readFile } = await import('node:fs/promises');
    const { parse } = await import('yaml');
    const { parsePostgresUrl } = await import('../../src/store/postgres-store.js');
    const { repoRoot } = await import('./helpers.js');
    const compose = parse(await readFile(`${repoRoot}/docker-compose.yml`, 'utf8'), { merge: true }) as {
      services: Record<string, { command?: string[]; environment?: Record<string, string> }>;
    };
    const storeOf = (service: string) => {
      const command = compose.services[service]?.command ?? [];
      return command[command.indexOf('--store') + 1] as string;
    };
    const kurrent = parseKurrentUrl(storeOf('chronicle'));
    expect(kurrent.connectionString).toBe(
      'kurrentdb://kurrentdb1:2113,kurrentdb2:2113,kurrentdb3:2113?tls=false',
    );
    expect(parsePostgresUrl(storeOf('chronicle-postgres')).schema).toBe('chronicle');
    for (const node of ['kurrentdb1', 'kurrentdb2', 'kurrentdb3'])
      expect(compose.services[node]?.environment).toMatchObject({
        KURRENTDB_CLUSTER_SIZE: '3',
        KURRENTDB_INSECURE: 'true',
      });
  });
});
