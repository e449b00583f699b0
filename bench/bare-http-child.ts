// The bare `node:http` server of `npm run bench -- editor-http`: the transport's limit on this machine.
// It reads each request's body, then answers a fixed small JSON body with `Connection: close`, and it
// runs in a process of its own so that, like the editor server, it has a core to itself.
//
// With `--fsync DIR` it is the limit of a durable mutation: each request's body is written to a
// classic-level database in DIR with a synced batch before it is answered, the bodies that arrive while
// a batch is being synced sharing the next one (group commit, as the event store writes): the bare
// server plus one group-committed fsync.
import { createServer } from 'node:http';
import type { AbstractBatchOptions } from 'abstract-level';
import { Level } from 'level';

const BODY = Buffer.from('{"ok":true,"status":"completed","http_status":200}');
const HEADERS = {
  'Content-Type': 'application/json',
  'Content-Length': String(BODY.length),
  'Access-Control-Allow-Origin': '*',
  Connection: 'close',
};

const flag = process.argv.indexOf('--fsync');
const dir = flag >= 0 ? process.argv[flag + 1] : undefined;
const db = dir === undefined ? undefined : new Level<string, string>(dir);
await db?.open();
// classic-level's sync option is not in abstract-level's types.
const SYNCED = { sync: true } as AbstractBatchOptions<string, string>;

let key = 0;
let waiting: Array<{ value: string; done: () => void }> = [];
let writing = false;

/** Writes what waits as one synced batch, then the next group, until nothing waits. */
async function commit(): Promise<void> {
  writing = true;
  while (waiting.length > 0 && db) {
    const group = waiting;
    waiting = [];
    const batch = db.batch();
    for (const { value } of group) batch.put(String(++key).padStart(14, '0'), value);
    await batch.write(SYNCED);
    for (const { done } of group) done();
  }
  writing = false;
}

const server = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    const answer = () => {
      response.writeHead(200, HEADERS);
      response.end(BODY);
    };
    if (!db) return answer();
    waiting.push({ value: Buffer.concat(chunks).toString('utf8'), done: answer });
    if (!writing) void commit();
  });
});
server.listen({ host: '127.0.0.1', port: 0 }, () => {
  const address = server.address();
  process.stdout.write(`bare listening on ${typeof address === 'object' && address ? address.port : 0}\n`);
});
process.once('SIGTERM', () => {
  server.close(() => {
    void (db ? db.close() : Promise.resolve()).then(() => process.exit(0));
  });
  server.closeAllConnections();
});
