/**
 * A read-only image registry on 127.0.0.1 for the tests on a real engine: no registry is reachable
 * here and none can be pulled to run one, so this serves the Registry HTTP API V2's pull
 * side (`/v2/`, manifests and blobs, GET and HEAD) for images copied out of the machine's engine with
 * `docker save`. Each image becomes a schema 2 manifest (its config and one gzipped layer per layer);
 * the same image may be served under several repositories, which is how an engine comes to hold one
 * image with registry digests of two repositories. dockerd pulls from 127.0.0.0/8 over plain HTTP by
 * default.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

const MANIFEST_TYPE = 'application/vnd.docker.distribution.manifest.v2+json';
const sha256 = (bytes: Buffer) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

interface Served {
  manifest: Buffer;
  digest: string;
}

export class TestRegistry {
  private readonly blobs = new Map<string, Buffer>();
  /** `repository:tag` → manifest. */
  private readonly tags = new Map<string, Served>();

  private constructor(
    private readonly server: Server,
    /** `127.0.0.1:PORT`, the first part of the image names it serves. */
    readonly host: string,
  ) {}

  static async start(): Promise<TestRegistry> {
    let registry: TestRegistry | undefined;
    const server = createServer((req, res) => registry?.answer(req.method ?? 'GET', req.url ?? '/', res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    registry = new TestRegistry(server, `127.0.0.1:${(server.address() as AddressInfo).port}`);
    return registry;
  }

  /**
   * Serves an image of the machine's engine as `repository:tag` (a repository without the host, e.g.
   * `evc/pullme`); answers the manifest's digest, the one every repository serving the image shares.
   */
  async serve(image: string, repository: string, tag: string): Promise<string> {
    const dir = await mkdtemp(join(tmpdir(), 'ct-registry-'));
    try {
      const saved = spawnSync('sh', ['-c', 'docker save "$0" | tar -x -C "$1"', image, dir], {
        encoding: 'utf8',
        timeout: 120_000,
      });
      if (saved.status !== 0) throw new Error(`docker save ${image} failed: ${saved.stderr}`);
      const [entry] = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8')) as Array<{
        Config: string;
        Layers: string[];
      }>;
      if (entry === undefined) throw new Error(`docker save ${image} wrote no manifest`);
      const config = await readFile(join(dir, entry.Config));
      this.blobs.set(sha256(config), config);
      const layers = [];
      for (const file of entry.Layers) {
        const gzipped = gzipSync(await readFile(join(dir, file)));
        this.blobs.set(sha256(gzipped), gzipped);
        layers.push({
          mediaType: 'application/vnd.docker.image.rootfs.diff.tar.gzip',
          size: gzipped.length,
          digest: sha256(gzipped),
        });
      }
      const manifest = Buffer.from(
        JSON.stringify({
          schemaVersion: 2,
          mediaType: MANIFEST_TYPE,
          config: {
            mediaType: 'application/vnd.docker.container.image.v1+json',
            size: config.length,
            digest: sha256(config),
          },
          layers,
        }),
      );
      const served = { manifest, digest: sha256(manifest) };
      this.tags.set(`${repository}:${tag}`, served);
      this.tags.set(`${repository}:${served.digest}`, served);
      return served.digest;
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private answer(method: string, url: string, res: ServerResponse): void {
    res.setHeader('Docker-Distribution-API-Version', 'registry/2.0');
    const path = new URL(url, 'http://registry').pathname;
    const send = (type: string, body: Buffer, digest: string) => {
      res.writeHead(200, {
        'Content-Type': type,
        'Content-Length': body.length,
        'Docker-Content-Digest': digest,
      });
      res.end(method === 'HEAD' ? undefined : body);
    };
    if (path === '/v2/' || path === '/v2') {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end('{}');
      return;
    }
    const manifest = /^\/v2\/(.+)\/manifests\/([^/]+)$/.exec(path);
    const served = manifest ? this.tags.get(`${manifest[1]}:${manifest[2]}`) : undefined;
    if (served) {
      send(MANIFEST_TYPE, served.manifest, served.digest);
      return;
    }
    const blob = /^\/v2\/.+\/blobs\/(sha256:[0-9a-f]{64})$/.exec(path);
    const bytes = blob ? this.blobs.get(blob[1] as string) : undefined;
    if (blob && bytes) {
      send('application/octet-stream', bytes, blob[1] as string);
      return;
    }
    res.writeHead(404, { 'Content-Type': 'application/json' });
    res.end(
      JSON.stringify({
        errors: [{ code: manifest ? 'MANIFEST_UNKNOWN' : 'BLOB_UNKNOWN', message: 'unknown' }],
      }),
    );
  }
}
