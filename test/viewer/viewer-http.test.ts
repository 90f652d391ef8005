/**
 * The viewer over HTTP, against a real warehouse built from the simulator: every page kind answers
 * with the reports' CSP header and no script; a foreign Host header and any method but GET/HEAD are
 * refused; filters, sorting and pages run in SQL; the query page refuses anything but one SELECT and
 * stops at its row cap and time limit; CSV downloads parse with Python's csv module and carry the
 * formula guard; the CLI prints the URL, stops with exit 0 on SIGINT/SIGTERM and says in one line why
 * it cannot start.
 */
import { request } from 'node:http';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { recordingIO } from '../../src/cli/io.js';
import { openWarehouse } from '../../src/warehouse/db.js';
import { allowedHosts, isLoopback } from '../../src/viewer/host-check.js';
import { startViewer, type RunningViewer } from '../../src/viewer/server.js';
import { pythonCsv } from '../helpers/python-csv.js';
import { spawnCli } from '../helpers/cli.js';
import { buildViewerWarehouse, type ViewerWarehouse } from './viewer-warehouse.js';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One request with full control of method and Host header (fetch does not let a test set Host). */
function send(
  viewer: RunningViewer,
  pathname: string,
  options: { method?: string; host?: string } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: viewer.port,
        path: pathname,
        method: options.method ?? 'GET',
        headers: { host: options.host ?? `127.0.0.1:${viewer.port}` },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

let warehouse: ViewerWarehouse;
let viewer: RunningViewer;
let expected: {
  critical: number;
  latest: number;
  failingOwasp: number;

  hostileRun: string;
  hostileSnapshot: string;
};

beforeAll(async () => {
  warehouse = await buildViewerWarehouse();
  const wh = await openWarehouse(warehouse.db, { readOnly: true });
  try {
    const one = async (sql: string): Promise<unknown[]> =>
      (await wh.conn.runAndReadAll(sql)).getRowsJS()[0] ?? [];
    const [critical] = await one(`SELECT count(*) FROM latest_metric_findings WHERE severity = 'critical'`);
    const [latest] = await one(`SELECT count(*) FROM latest_metric_findings`);
    const [failingOwasp] =
      await one(`SELECT count(*) FROM latest_metric_findings f JOIN attack_runs r USING (snapshot_id, attack_run_id)
      WHERE EXISTS (SELECT 1 FROM metric_compliance_categories c WHERE c.snapshot_id = f.snapshot_id AND c.project_key = f.project_key
        AND c.framework = 'owasp_llm' AND c.state = 'failing'
        AND list_contains(from_json(r.compliance_tags -> 'owasp_categories', '["VARCHAR"]'), c.tag))`);
    const [hostileSnapshot, hostileRun] = await one(`SELECT t.snapshot_id, r.attack_run_id FROM trials t
      JOIN attack_runs r USING (snapshot_id, assessment_id, attack_name, goal) JOIN latest_metric_findings f USING (snapshot_id, attack_run_id)
      WHERE t.candidate LIKE '%<script>%' OR t.response LIKE '%<script>%' OR t.candidate LIKE '%alert(%' ORDER BY 1, 2 LIMIT 1`);
    expected = {
      critical: Number(critical),
      latest: Number(latest),
      failingOwasp: Number(failingOwasp),
      hostileRun: String(hostileRun),
      hostileSnapshot: String(hostileSnapshot),
    };
  } finally {
    wh.close();
  }
  viewer = await startViewer({ db: warehouse.db, queryRowCap: 100, queryTimeLimitMs: 500 });
}, 60_000);

afterAll(async () => {
  await viewer?.close();
});

const pageKinds = (): string[] => [
  '/',
  '/findings',
  `/finding?snapshot=${encodeURIComponent(expected.hostileSnapshot)}&run=${encodeURIComponent(expected.hostileRun)}`,
  '/framework?project=payments-agent&framework=owasp_llm',
  '/compare',
  '/query',
  '/query?name=asr_by_category',
  '/report/executive?project=payments-agent',
];

describe('pages', () => {
  it('every page kind answers 200 with the CSP header, no script and no hostile markup', async () => {
    expect(expected.hostileRun).not.toBe('undefined');
    for (const page of pageKinds()) {
      const answer = await send(viewer, page);
      expect(answer.status, page).toBe(200);
      expect(answer.headers['content-security-policy'], page).toMatch(/^default-src 'none';/);
      expect(answer.headers['x-frame-options']).toBe('DENY');
      // Hostile names and texts arrive as text (`&lt;img …`), never as an element or a javascript: link.
      expect(answer.body, page).not.toMatch(/<script|<img|<iframe|href="javascript:/i);
    }
  });

  it('HEAD answers like GET without a body', async () => {
    const answer = await send(viewer, '/findings', { method: 'HEAD' });
    expect(answer.status).toBe(200);
    expect(answer.body).toBe('');
  });

  it('the finding page shows the trials behind the finding, hostile text escaped', async () => {
    const page = `/finding?snapshot=${encodeURIComponent(expected.hostileSnapshot)}&run=${encodeURIComponent(expected.hostileRun)}`;
    const { body } = await send(viewer, page);
    expect(body).toContain('<h2 id="trials">Trials</h2>');
    expect(body).toMatch(/<h3>\s*Trial \d/);
    expect(body).toMatch(/&lt;script&gt;|alert\(/);
  });

  it("the finding page shows a triaged finding's history: the service's review event and the journal line", async () => {
    const { run, snapshotId } = warehouse.triaged;
    const { body } = await send(
      viewer,
      `/finding?snapshot=${encodeURIComponent(snapshotId)}&run=${encodeURIComponent(run)}`,
    );
    const journal = body.slice(body.indexOf('Triage journal'));
    expect(journal).toContain('remediated');
    // The notes are text, never markup.
    expect(body).not.toContain('<b onmouseover');
    expect(journal).toContain('&lt;b onmouseover&#x3D;alert(1)&gt;see ticket&lt;/b&gt;');
    const reviews = body.slice(body.indexOf('id="table-reviews"'), body.indexOf('Triage journal'));
    expect(reviews).toContain('remediated');
  });

  it('an unknown page is 404 and a bad parameter 400, each with a message', async () => {
    expect((await send(viewer, '/nope')).status).toBe(404);
    const sort = await send(viewer, '/findings?sort=goal;drop');
    expect(sort.status).toBe(400);
    expect(sort.body).toContain('The sort parameter must be one of');
    expect((await send(viewer, '/findings?severity=apocalyptic')).status).toBe(400);
    expect((await send(viewer, '/finding?snapshot=x&run=y')).status).toBe(404);
    expect((await send(viewer, '/findings?page=0')).status).toBe(400);
    const project = await send(viewer, '/framework?project=nope&framework=owasp_llm');
    expect(project.status).toBe(400);
    expect(project.body).not.toContain('--project');
  });
});

describe('safe by default', () => {
  it('refuses a foreign Host header (DNS rebinding) and accepts localhost', async () => {
    for (const host of [
      'evil.example',
      `evil.example:${viewer.port}`,
      `127.0.0.1:${viewer.port + 1}`,
      '127.0.0.1',
    ]) {
      const answer = await send(viewer, '/', { host });
      expect(answer.status, host).toBe(421);
      expect(answer.body).not.toContain('<table');
    }
    expect((await send(viewer, '/findings', { host: `localhost:${viewer.port}` })).status).toBe(200);
  });

  it('answers POST, PUT, DELETE with 405 and Allow: GET, HEAD', async () => {
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS']) {
      const answer = await send(viewer, '/query?sql=select%201', { method });
      expect(answer.status, method).toBe(405);
      expect(answer.headers.allow).toBe('GET, HEAD');
    }
  });
});

describe('host check', () => {
  it('answers the bound address and port, plus localhost on loopback only', () => {
    expect([...allowedHosts('127.0.0.1', 8080)].sort()).toEqual(
      ['127.0.0.1:8080', '[::1]:8080', 'localhost:8080'].sort(),
    );
    expect([...allowedHosts('192.168.1.5', 8080)]).toEqual(['192.168.1.5:8080']);
    expect([...allowedHosts('::1', 9)]).toContain('[::1]:9');
    expect(['127.0.0.1', '127.1.2.3', '::1', 'localhost'].every(isLoopback)).toBe(true);
    // Anything else makes serve warn that other machines can read the warehouse.
    expect(['0.0.0.0', '::', '192.168.1.5', '10.0.0.1'].some(isLoopback)).toBe(false);
  });
});

describe('findings list', () => {
  const countOf = (body: string): number => Number(/\((\d+) findings\)/.exec(body)?.[1] ?? NaN);

  it('filters by severity and by framework category state, counted as the metrics layer counts', async () => {
    expect(countOf((await send(viewer, '/findings')).body)).toBe(expected.latest);
    expect(countOf((await send(viewer, '/findings?severity=critical')).body)).toBe(expected.critical);
    expect(expected.failingOwasp).toBeGreaterThan(0);
    expect(countOf((await send(viewer, '/findings?framework=owasp_llm&state=failing')).body)).toBe(
      expected.failingOwasp,
    );
  });

  it('pages in SQL and sorts by whitelisted columns', async () => {
    const first = await send(viewer, '/findings?sort=score&order=asc');
    expect(first.status).toBe(200);
    const scores = [...first.body.matchAll(/<td class="num">([\d.]+)<\/td>/g)].map((m) => Number(m[1]));
    expect(scores).toEqual([...scores].sort((a, b) => a - b));
    const beyond = await send(viewer, '/findings?page=99');
    expect(beyond.body).toContain('No finding matches these filters.');
  });

  it('downloads the filtered list as CSV that Python reads, formulas guarded', async () => {
    const answer = await send(viewer, '/findings?severity=critical&download=findings');
    expect(answer.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(answer.headers['content-disposition']).toBe('attachment; filename="findings.csv"');
    const rows = pythonCsv(answer.body);
    expect(rows[0]).toContain('severity');
    expect(rows.length - 1).toBe(expected.critical);
    expect(rows.slice(1).every((row) => row[0] === 'critical')).toBe(true);
    for (const cell of rows.flat()) expect(cell).not.toMatch(/^[=+@]/);
  });

  it('downloads a table with a formula-shaped cell guarded', async () => {
    const answer = await send(
      viewer,
      `/query?sql=${encodeURIComponent(`SELECT '=HYPERLINK("http://x","y")' AS a, 'x,"y"\nz' AS b`)}&download=result`,
    );
    expect(pythonCsv(answer.body)).toEqual([
      ['a', 'b'],
      [`'=HYPERLINK("http://x","y")`, 'x,"y"\nz'],
    ]);
  });
});

describe('query page', () => {
  const run = (sql: string): Promise<Answer> => send(viewer, `/query?sql=${encodeURIComponent(sql)}`);

  it('refuses anything but one SELECT, and files stay out of reach', async () => {
    for (const sql of [
      'CREATE TABLE x (a INT)',
      'DELETE FROM snapshots',
      "ATTACH 'x.db'",
      'SET threads = 1',
      'SELECT 1; SELECT 2',
      // A user tryout found these reached DuckDB (its locked file access stopped the first two).
      `COPY (SELECT 1) TO '${path.join(warehouse.dir, 'copied.csv')}'`,
      `EXPORT DATABASE '${path.join(warehouse.dir, 'exported')}'`,
      'PRAGMA database_list',
      '/* a comment */ -- and another\n  pragma database_list',
    ]) {
      const answer = await run(sql);
      expect(answer.status, sql).toBe(200);
      expect(answer.body, sql).toMatch(
        /class="error-box">The query page runs (one SELECT|SELECT statements only)/,
      );
    }
    const secret = path.join(warehouse.dir, 'secret.txt');
    await writeFile(secret, 'token\n');
    const file = await run(`SELECT * FROM read_text('${secret}')`);
    expect(file.body).toMatch(/error-box">The query failed: Permission Error/);
    // The warehouse is attached read-only (db.ts attaches it to an in-memory instance).
    const mode = await run(
      `SELECT readonly::VARCHAR AS mode FROM duckdb_databases() WHERE database_name = current_database()`,
    );
    expect(mode.body).toContain('<td>true</td>');
  });

  it('stops at the row cap and at the time limit', async () => {
    const many = await run('SELECT range AS n FROM range(1000)');
    expect(many.body).toContain('The first 100 rows are shown');
    expect([...many.body.matchAll(/<tr>\s*<td/g)]).toHaveLength(100);
    const slow = await run('SELECT count(*) FROM range(1000000000000) a');
    expect(slow.status).toBe(503);
    expect(slow.body).toContain('was stopped');
    // The connection is usable after the interrupt.
    expect((await run('SELECT 41 + 1 AS answer')).body).toMatch(/<td>42<\/td>/);
  });

  it('runs the shipped named queries', async () => {
    const answer = await send(viewer, '/query?name=asr_by_category');
    expect(answer.body).toMatch(/<caption>\s*@asr_by_category/);
    expect((await send(viewer, '/query?name=../etc')).status).toBe(404);
  });
});

describe('serve command', () => {
  it('says in one line that the database cannot be read, exit 1', async () => {
    const notDb = path.join(warehouse.dir, 'not-a-db.duckdb');
    await writeFile(notDb, 'hello, not a database\n'.repeat(200));
    for (const db of [notDb, path.join(warehouse.dir, 'missing.duckdb')]) {
      const io = recordingIO();
      expect(await main(['serve', '--db', db], io)).toBe(1);
      const stderr = io.err.join('');
      expect(stderr.trim().split('\n'), stderr).toHaveLength(1);
      expect(stderr).not.toMatch(/\n\s+at /);
    }
  });

  it('says in one line that the port is in use, exit 1', async () => {
    const io = recordingIO();
    expect(await main(['serve', '--db', warehouse.db, '--port', String(viewer.port)], io)).toBe(1);
    expect(io.err.join('')).toBe(
      `airt-report: Port ${viewer.port} on 127.0.0.1 is already in use: choose another --port (0 picks a free one).\n`,
    );
  });

  it.each(['SIGINT', 'SIGTERM'] as const)(
    'prints the URL, serves, and on %s closes and exits 0',
    async (signal) => {
      const { child, finished } = spawnCli(['serve', '--db', warehouse.db]);
      try {
        const url = await new Promise<string>((resolve, reject) => {
          let out = '';
          child.stdout?.on('data', (chunk: Buffer) => {
            out += chunk.toString();
            const match = /^(http:\/\/127\.0\.0\.1:\d+\/)\n/m.exec(out);
            if (match?.[1]) resolve(match[1]);
          });
          child.once('close', () => reject(new Error(`serve ended before printing its URL: ${out}`)));
        });
        const page = await fetch(`${url}findings`);
        expect(page.status).toBe(200);
        child.kill(signal);
        const result = await finished;
        expect(result.code).toBe(0);
        expect(result.stderr).toContain('Viewer stopped.');
      } finally {
        if (child.exitCode === null) child.kill('SIGKILL');
      }
    },
    30_000,
  );
});
