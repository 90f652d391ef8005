/**
 * A 200 answer whose body is not JSON (cut in half, a proxy's HTML page) is no answer: the request is
 * repeated like a 502 and, if it never comes whole, fails — the snapshot is partial, names the request
 * and can be resumed. It is never stored, never read for facts (a summary cut short must not make its
 * trial lists disappear) and never shared by a later `--since`. A trial list too long to check while
 * it arrives is checked from its file by the streaming validation: a syntax error found there fails
 * the request afterwards, with the same outcome (partial, file removed, resumable).
 */
import { createHash } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { SPILL_BYTES } from '../../src/snapshot/fetch-to-file.js';
import { computeRootHash, type ManifestFile } from '../../src/snapshot/manifest.js';
import { TERMINAL_STATUSES } from '../../src/snapshot/since.js';
import { takeSnapshot, type SnapshotResult } from '../../src/snapshot/take-snapshot.js';
import { verifySnapshot } from '../../src/snapshot/verify.js';
import { makeTempDir } from '../helpers/temp-dirs.js';
import { dataFileHashes, listAll, readManifestFile, SMALL, TOKEN } from './fixtures.js';

/** What the proxy does to the answer of one request (path and query), `times` times. */
interface Fault {
  path: string;
  /** `half`: the JSON body cut in half; `html`: a maintenance page; `long-half`: a trial list made longer than a held body, then cut. */
  kind: 'half' | 'html' | 'long-half';
  times: number;
}

interface FaultProxy {
  url: string;
  /** Requests seen, by path and query. */
  hits: Map<string, number>;
  fault: Fault | undefined;
  close(): Promise<void>;
}

function spoil(fault: Fault, body: Buffer): { type: string; body: Buffer } {
  if (fault.kind === 'html') {
    return { type: 'text/html', body: Buffer.from('<html><body>Down for maintenance</body></html>') };
  }
  let json = body;
  if (fault.kind === 'long-half') {
    const trials = JSON.parse(body.toString('utf8')) as unknown[];
    const long: unknown[] = [];
    while (JSON.stringify(long).length < 3 * SPILL_BYTES) long.push(...trials);
    json = Buffer.from(JSON.stringify(long));
  }
  return { type: 'application/json', body: json.subarray(0, Math.floor(json.length / 2)) };
}

/** A loopback proxy in front of `target` that spoils the 200 answers of one request while its fault lasts. */
async function startFaultProxy(target: string): Promise<FaultProxy> {
  const upstream = new URL(target);
  const proxy: FaultProxy = { url: '', hits: new Map(), fault: undefined, close: () => Promise.resolve() };
  const server: Server = createServer((req, res) => {
    const pathAndQuery = req.url ?? '/';
    proxy.hits.set(pathAndQuery, (proxy.hits.get(pathAndQuery) ?? 0) + 1);
    const forward = httpRequest(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: pathAndQuery,
        headers: { ...req.headers, host: upstream.host, 'accept-encoding': 'identity' },
      },
      (answer) => {
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => chunks.push(chunk));
        answer.on('end', () => {
          const fault = proxy.fault;
          let type = answer.headers['content-type'] ?? 'application/json';
          let body: Buffer = Buffer.concat(chunks);
          if (answer.statusCode === 200 && fault && fault.path === pathAndQuery && fault.times > 0) {
            fault.times--;
            ({ type, body } = spoil(fault, body));
          }
          res.writeHead(answer.statusCode ?? 502, { 'content-type': type, 'content-length': body.length });
          res.end(body);
        });
      },
    );
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  proxy.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return proxy;
}

const RETRY = { baseDelayMs: 1, maxDelayMs: 5, maxAttempts: 3 };

let sim: RunningSimulator;
let proxy: FaultProxy;
let reference: SnapshotResult;

beforeAll(async () => {
  sim = await startSimulator(SMALL);
  proxy = await startFaultProxy(sim.url);
  reference = await takeSnapshot({
    baseUrl: sim.url,
    org: 'acme',
    workspace: 'main',
    token: TOKEN,
    out: await makeTempDir('airt-unusable-ref-'),
  });
});

afterAll(async () => {
  await proxy.close();
  await sim.close();
});

const snapshotVia = async (out: string, extra: { resume?: string; since?: string } = {}) =>
  takeSnapshot({
    baseUrl: proxy.url,
    org: 'acme',
    workspace: 'main',
    token: TOKEN,
    out,
    retry: RETRY,
    ...extra,
  });

/** The reference's file of `kind` (with records, when given), to aim a fault at its request. */
function fileOf(
  kind: ManifestFile['kind'],
  test: (file: ManifestFile) => boolean = () => true,
): ManifestFile {
  const file = reference.manifest.files.find((f) => f.kind === kind && f.request !== null && test(f));
  if (!file?.request) throw new Error(`no ${kind} file in the reference snapshot`);
  return file;
}

describe('a 200 whose body is not JSON', () => {
  it('is requested again, and a snapshot whose retry got the whole body is complete', async () => {
    const summary = fileOf('project_summary', (f) => (f.records ?? 0) > 0);
    proxy.fault = { path: summary.request!.path, kind: 'half', times: RETRY.maxAttempts - 1 };
    proxy.hits.clear();
    const result = await snapshotVia(await makeTempDir('airt-unusable-retried-'));
    expect(result.status).toBe('complete');
    expect(proxy.hits.get(summary.request!.path)).toBe(RETRY.maxAttempts);
    expect(await dataFileHashes(result.dir)).toEqual(await dataFileHashes(reference.dir));
  });

  it('that keeps coming cut in half fails its request: partial, named, nothing of it stored, and --resume completes it', async () => {
    const summary = fileOf('project_summary', (f) => (f.records ?? 0) > 0);
    const trialsOfProject = reference.manifest.files.filter(
      (f) => f.kind === 'trials' && f.project === summary.project,
    );
    expect(trialsOfProject.length).toBeGreaterThan(0);
    proxy.fault = { path: summary.request!.path, kind: 'half', times: Infinity };
    const out = await makeTempDir('airt-unusable-summary-');
    const result = await snapshotVia(out);

    expect(result.status).toBe('partial');
    const failed = result.manifest.failed_requests;
    expect(failed.map((f) => [f.path, f.kind, f.status, f.attempts])).toEqual([
      [summary.request!.path, 'project_summary', 200, RETRY.maxAttempts],
    ]);
    expect(failed[0]!.error).toMatch(/answered 200 but its body is not valid JSON \(after 3 attempts\)/);
    expect(result.manifest.files.map((f) => f.path)).not.toContain(summary.path);
    expect(await listAll(result.dir)).not.toContain(summary.path);
    expect(result.manifest.projects.find((p) => p.key === summary.project)?.status).toBe('failed');
    expect((await verifySnapshot(result.dir)).ok).toBe(true);

    proxy.fault = undefined;
    const resumed = await snapshotVia(out, { resume: result.dir });
    expect(resumed.status).toBe('complete');
    expect(await dataFileHashes(resumed.dir)).toEqual(await dataFileHashes(reference.dir));
    expect((await verifySnapshot(resumed.dir)).ok).toBe(true);
  });

  it('that is an HTML page fails its request, and the message shows what came', async () => {
    const page = fileOf('evaluations_page', (f) => f.page === 2);
    proxy.fault = { path: page.request!.path, kind: 'html', times: Infinity };
    const result = await snapshotVia(await makeTempDir('airt-unusable-html-'));
    proxy.fault = undefined;
    expect(result.status).toBe('partial');
    const [failed] = result.manifest.failed_requests;
    expect(failed?.path).toBe(page.request!.path);
    expect(failed?.error).toMatch(/content-type text\/html, \d+ bytes: "Down for maintenance"/);
    expect(result.manifest.files.map((f) => f.path)).not.toContain(page.path);
  });

  it('in a trial list too long to hold is found by the streaming validation: partial, file removed, resumable', async () => {
    const trials = fileOf('trials', (f) => (f.records ?? 0) > 0);
    proxy.fault = { path: trials.request!.path, kind: 'long-half', times: Infinity };
    const out = await makeTempDir('airt-unusable-long-');
    const result = await snapshotVia(out);

    expect(result.status).toBe('partial');
    const failed = result.manifest.failed_requests;
    // Stored whole (too long to check while it arrived), then found cut short: one attempt, no retry.
    expect(failed.map((f) => [f.path, f.kind, f.status, f.attempts, f.assessment_id])).toEqual([
      [trials.request!.path, 'trials', 200, 1, trials.assessment_id],
    ]);
    expect(failed[0]!.error).toMatch(/not valid JSON/);
    expect(result.manifest.files.map((f) => f.path)).not.toContain(trials.path);
    expect(await listAll(result.dir)).not.toContain(trials.path);
    expect((await verifySnapshot(result.dir)).ok).toBe(true);

    proxy.fault = undefined;
    const resumed = await snapshotVia(out, { resume: result.dir });
    expect(resumed.status).toBe('complete');
    expect(await dataFileHashes(resumed.dir)).toEqual(await dataFileHashes(reference.dir));
  });

  it('listed by an earlier snapshot (invalid_json) is never shared by --since: it is requested again', async () => {
    // What earlier versions wrote: a finished trial list cut in half, listed with its hash and an
    // invalid_json issue, in a snapshot that verifies.
    const out = await makeTempDir('airt-unusable-since-');
    const previous = await snapshotVia(out);
    const victim = previous.manifest.files.find(
      (f) =>
        f.kind === 'trials' && (f.records ?? 0) > 0 && TERMINAL_STATUSES.includes(f.assessment_status ?? ''),
    )!;
    const file = path.join(previous.dir, victim.path);
    const cut = (await readFile(file)).subarray(0, Math.floor(victim.bytes / 2));
    await writeFile(file, cut);
    const manifest = await readManifestFile(previous.dir);
    const files = manifest.files.map((f) =>
      f.path === victim.path
        ? {
            ...f,
            sha256: createHash('sha256').update(cut).digest('hex'),
            bytes: cut.length,
            records: null,
            issues: [
              { path: '$', message: 'not valid JSON: Unexpected end of JSON input', code: 'invalid_json' },
            ],
            issues_total: 1,
          }
        : f,
    );
    await writeFile(
      path.join(previous.dir, 'manifest.json'),
      JSON.stringify({ ...manifest, files, root_sha256: computeRootHash(files) }, null, 2) + '\n',
    );
    expect((await verifySnapshot(previous.dir)).ok).toBe(true);

    proxy.hits.clear();
    const next = await snapshotVia(out, { since: previous.dir });
    const entry = next.manifest.files.find((f) => f.path === victim.path)!;
    expect(entry.reused_from).toBeUndefined();
    expect(entry.stored).toBe('fetched');
    expect(entry.sha256).toBe(victim.sha256);
    expect(proxy.hits.get(victim.request!.path)).toBe(1);
    expect(next.status).toBe('complete');
    expect((await verifySnapshot(next.dir)).ok).toBe(true);
    // Other finished trial lists are still shared.
    expect(next.manifest.files.some((f) => f.reused_from !== undefined)).toBe(true);
  });
});
