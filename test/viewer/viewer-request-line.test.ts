/**
 * The viewer's Host check (the DNS-rebinding defence) is only as good as the Host it reads. Node's
 * http module keeps the first of two Host headers and ignores the name in an absolute-URI request
 * line, so a request with a valid first Host plus a second one, or `GET http://evil.example/` with a
 * valid Host, was answered. Browsers send neither: the viewer refuses both as it refuses a foreign
 * Host (421). Sent over a raw TCP socket, because an HTTP client writes neither of them.
 */
import { connect } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/simulator/index.js';
import { startViewer, type RunningViewer } from '../../src/viewer/server.js';
import { loadSnapshots } from '../../src/warehouse/loader.js';
import { makeTempDir } from '../helpers/temp-dirs.js';
import { snapshotSimulator } from '../helpers/simulator-snapshot.js';

let viewer: RunningViewer;

beforeAll(async () => {
  const dir = await makeTempDir('airt-viewer-request-line-');
  const sim = await startSimulator({
    seed: 3,
    projects: 1,
    scale: { assessmentsPerProject: 1, attacksPerAssessment: 1, trialsPerAttack: 1, evaluationJobs: 1 },
  });
  try {
    const snapshot = await snapshotSimulator(sim, {
      out: path.join(dir, 'snapshots'),
      projects: sim.truth.projects().map((p) => p.key),
    });
    const db = path.join(dir, 'airt.duckdb');
    await loadSnapshots(db, [snapshot.dir]);
    viewer = await startViewer({ db });
  } finally {
    await sim.close();
  }
}, 60_000);

afterAll(async () => {
  await viewer?.close();
});

/** Writes `lines` as one raw request (CRLF, blank line after) and resolves with the whole answer. */
function rawRequest(lines: string[]): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port: viewer.port });
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('error', reject);
    socket.on('end', () => {
      const status = /^HTTP\/1\.1 (\d{3}) /u.exec(text)?.[1];
      resolve({ status: Number(status ?? 0), text });
    });
    socket.write(`${lines.join('\r\n')}\r\n\r\n`);
  });
}

describe('what only a non-browser sends', () => {
  const own = (): string => `Host: 127.0.0.1:${viewer.port}`;

  it('answers an ordinary request written the same way (the raw client works)', async () => {
    const answer = await rawRequest(['GET / HTTP/1.1', own(), 'Connection: close']);
    expect(answer.status).toBe(200);
    expect(answer.text).toContain('<table');
  });

  it('refuses two Host headers, the first one valid, as a foreign Host', async () => {
    for (const second of ['Host: evil.example', own()]) {
      const answer = await rawRequest(['GET / HTTP/1.1', own(), second, 'Connection: close']);
      expect(answer.status, second).toBe(421);
      expect(answer.text).toContain('This viewer does not answer for that Host.');
      expect(answer.text).not.toContain('<table');
    }
  });

  it('refuses an absolute-URI request line, even with a valid Host', async () => {
    for (const target of ['http://evil.example/', `http://127.0.0.1:${viewer.port}/findings`]) {
      const answer = await rawRequest([`GET ${target} HTTP/1.1`, own(), 'Connection: close']);
      expect(answer.status, target).toBe(421);
      expect(answer.text).toContain('This viewer does not answer for that Host.');
      expect(answer.text).not.toContain('<table');
    }
  });
});
