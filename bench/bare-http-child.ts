// The bare `node:http` server of `npm run bench -- editor-http`: the transport's limit on this machine.
// It reads each request's body, then answers a fixed small JSON body with `Connection: close`, and it
// runs in a process of its own so that, like the editor server, it has a core to itself.
import { createServer } from 'node:http';

const BODY = Buffer.from('{"ok":true,"status":"completed","http_status":200}');
const HEADERS = {
  'Content-Type': 'application/json',
  'Content-Length': String(BODY.length),
  'Access-Control-Allow-Origin': '*',
  Connection: 'close',
};

const server = createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    response.writeHead(200, HEADERS);
    response.end(BODY);
  });
});
server.listen({ host: '127.0.0.1', port: 0 }, () => {
  const address = server.address();
  process.stdout.write(`bare listening on ${typeof address === 'object' && address ? address.port : 0}\n`);
});
process.once('SIGTERM', () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
