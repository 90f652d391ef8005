/**
 * What the snapshot guarantees while its validation runs beside the requests (bodies in memory on the
 * main thread, in slices; bodies too large to hold on a worker thread, from their file) and its files
 * are flushed in the background: every stored file is byte for byte the body the service sent for its
 * request, every manifest entry's validation (records, issues, unknown keys) is what checkBody finds
 * in that file read afresh, and schema drift stays clear (element paths, messages, wildcard keys, the
 * manifest's schema_drift). A loopback proxy in front of the simulator records each body it serves,
 * plants drift in the trial lists and makes one of them larger than a body held in memory.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { checkBody } from '../../src/snapshot/check-body.js';
import { SPILL_BYTES } from '../../src/snapshot/fetch-to-file.js';
import { takeSnapshot, type SnapshotResult } from '../../src/snapshot/take-snapshot.js';
import { verifySnapshot } from '../../src/snapshot/verify.js';
import { makeTempDir } from '../helpers/temp-dirs.js';
import { SMALL, startProxy, TOKEN } from './fixtures.js';

const sha256 = (data: string | Buffer): string => createHash('sha256').update(data).digest('hex');

let sim: RunningSimulator;
let proxy: { url: string; close(): Promise<void> };
/** sha256 of each 200 body the proxy served, by path and query. */
const served = new Map<string, string>();
/** The trial list made larger than a body held in memory. */
let padded: string | undefined;
let snapshot: SnapshotResult;

beforeAll(async () => {
  sim = await startSimulator(SMALL);
  proxy = await startProxy(sim.url, {
    rewrite: (pathAndQuery, body) => {
      let out = body;
      if (pathAndQuery.includes('/traces/trials')) {
        // Drift: a key the spec does not know on every trial, and a score of the wrong type on the first.
        const trials = JSON.parse(body) as Record<string, unknown>[];
        // The first list with a trial is padded past SPILL_BYTES: it is written as it arrives and
        // validated from its file on a worker, the path of large lists.
        const pad = trials.length > 0 && !padded ? 'x'.repeat(SPILL_BYTES + 1024) : undefined;
        if (pad) padded = pathAndQuery;
        out = JSON.stringify(
          trials.map((trial, index) => ({
            ...trial,
            brand_new: index,
            ...(index === 0 ? { score: 'high' } : {}),
            ...(index === 0 && pad ? { judge_reasoning: pad } : {}),
          })),
        );
      }
      served.set(pathAndQuery, sha256(out));
      return out;
    },
  });
  const out = await makeTempDir('airt-fetch-fidelity-');
  snapshot = await takeSnapshot({
    baseUrl: proxy.url,
    org: 'acme',
    workspace: 'main',
    token: TOKEN,
    out,
    concurrency: 4,
  });
});

afterAll(async () => {
  await proxy.close();
  await sim.close();
});

describe('a snapshot validated beside its requests and flushed in the background', () => {
  it('stores every body byte for byte as served, and verifies', async () => {
    const large = snapshot.manifest.files.find((file) => file.request?.path === padded);
    expect(large?.bytes).toBeGreaterThan(SPILL_BYTES);
    const fetched = snapshot.manifest.files.filter((file) => file.request !== null);
    expect(fetched.length).toBeGreaterThan(5);
    for (const file of fetched) {
      const expected = served.get(file.request!.path);
      expect(expected, file.path).toBeDefined();
      expect(file.sha256, file.path).toBe(expected);
      expect(sha256(await readFile(path.join(snapshot.dir, file.path))), file.path).toBe(expected);
    }
    const verified = await verifySnapshot(snapshot.dir);
    expect(verified.ok).toBe(true);
  });

  it('records in each manifest entry what checkBody finds in the file read afresh', async () => {
    for (const file of snapshot.manifest.files) {
      const check = await checkBody(file.kind, path.join(snapshot.dir, file.path), file.bytes);
      expect(
        { records: file.records, issues: file.issues, total: file.issues_total, keys: file.unknown_keys },
        file.path,
      ).toEqual({
        records: check.records,
        issues: check.issues,
        total: check.issuesTotal,
        keys: check.unknownKeys,
      });
    }
  });

  it('keeps schema drift clear', () => {
    // Lists with at least one trial (an assessment may have none yet).
    const trials = snapshot.manifest.files.filter(
      (file) => file.kind === 'trials' && (file.records ?? 0) > 0,
    );
    expect(trials.length).toBeGreaterThan(1);
    for (const file of trials) {
      expect(file.unknown_keys, file.path).toContain('$[*].brand_new');
      expect(file.issues[0]?.path, file.path).toBe('$[0].score');
      expect(file.issues[0]?.message, file.path).toMatch(/number/);
    }
    expect(snapshot.manifest.schema_drift.trials).toContain('$[*].brand_new');
  });
});
