/**
 * listAllEvaluations against a real HTTP server whose pages the test scripts: a stable list, a list
 * that shifts under the cursor (duplicates, total changes), and services that lie about `total`.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createApiClient, type ApiClient } from '../../src/api/client.js';
import { evaluationJob, evaluationPage, jobId, TOKEN } from './helpers/bodies.js';
import { startScriptServer, type Script, type ScriptServer } from './helpers/script-server.js';

let server: ScriptServer | undefined;
let client: ApiClient | undefined;

afterEach(async () => {
  await client?.close();
  await server?.close();
});

async function setup(script: Script): Promise<ApiClient> {
  server = await startScriptServer(script);
  client = createApiClient({ baseUrl: server.url, token: TOKEN, sleep: () => Promise.resolve() });
  return client;
}

function pageOf(url: string): number {
  return Number(new URL(url, 'http://x').searchParams.get('page'));
}

describe('listAllEvaluations', () => {
  it('reads every page at page_size 100 until total is reached', async () => {
    const api = await setup((request) => {
      const page = pageOf(request.url);
      const from = (page - 1) * 100 + 1;
      return { body: evaluationPage(page, from, Math.min(from + 99, 250), 250) };
    });
    const all = await api.listAllEvaluations('acme', 'main', { projectId: jobId(7) });
    expect(all.items).toHaveLength(250);
    expect(all.items[0]?.id).toBe(jobId(1));
    expect(all.items[249]?.id).toBe(jobId(250));
    expect(all.pages).toBe(3);
    expect(all.duplicateIds).toEqual([]);
    expect(all.totalChanges).toEqual([]);
    expect(all.stoppedBecause).toBe('total_reached');
    expect(all.complete).toBe(true);
    expect(server?.requests.map((r) => r.url)).toEqual(
      [1, 2, 3].map(
        (p) => `/api/v1/org/acme/ws/main/evaluations?page=${p}&page_size=100&project_id=${jobId(7)}`,
      ),
    );
  });

  it('de-duplicates items pushed onto the next page and reports total changing', async () => {
    // Between page 1 and page 2, three jobs are inserted at the head: page 2 starts with 3 seen jobs.
    const api = await setup((request) => {
      const page = pageOf(request.url);
      if (page === 1) return { body: evaluationPage(1, 1, 100, 150) };
      const body = evaluationPage(2, 98, 153, 153);
      return { body: { ...body, items: (body.items as unknown[]).slice(0, 56) } };
    });
    const all = await api.listAllEvaluations('acme', 'main');
    expect(all.pages).toBe(2);
    expect(all.duplicateIds).toEqual([jobId(98), jobId(99), jobId(100)]);
    expect(all.totalChanges).toEqual([{ page: 2, from: 150, to: 153 }]);
    expect(all.items).toHaveLength(153);
    expect(new Set(all.items.map((j) => j.id)).size).toBe(153);
    expect(all.total).toBe(153);
  });

  it('stops on an empty page and says the listing is short', async () => {
    const api = await setup((request) => {
      const page = pageOf(request.url);
      if (page === 1) return { body: evaluationPage(1, 1, 100, 500) };
      return { body: { items: [], page, page_size: 100, total: 500 } };
    });
    const all = await api.listAllEvaluations('acme', 'main');
    expect(all.pages).toBe(2);
    expect(all.stoppedBecause).toBe('empty_page');
    expect(all.complete).toBe(false);
    expect(all.items).toHaveLength(100);
  });

  it('is bounded when the service claims a huge total and repeats the same page', async () => {
    const api = await setup(() => ({ body: evaluationPage(1, 1, 100, 1_000_000_000) }));
    const all = await api.listAllEvaluations('acme', 'main');
    expect(all.stoppedBecause).toBe('no_new_items');
    expect(all.pages).toBe(4); // one useful page, then three that bring nothing new
    expect(all.complete).toBe(false);
    expect(all.duplicateIds).toHaveLength(100);
  });

  it('is bounded by the first total / 100 + 10 pages even when total keeps growing', async () => {
    const api = await setup((request) => {
      const page = pageOf(request.url);
      // One new job per page while total grows by a page's worth each time: page * 100 never
      // catches up with total, so only the cap (from the first total, 600 → 6 + 10) ends the loop.
      return { body: { items: [evaluationJob(page)], page, page_size: 100, total: 500 + page * 100 } };
    });
    const all = await api.listAllEvaluations('acme', 'main');
    expect(all.stoppedBecause).toBe('page_cap');
    expect(all.pages).toBe(16);
    expect(server?.requests).toHaveLength(16);
    expect(all.totalChanges).toHaveLength(15);
    expect(all.totalChanges[0]).toEqual({ page: 2, from: 600, to: 700 });
    expect(all.complete).toBe(false);
  });

  it('follows a service that caps page_size below ours', async () => {
    const api = await setup((request) => {
      const page = pageOf(request.url);
      const from = (page - 1) * 50 + 1;
      return { body: { ...evaluationPage(page, from, Math.min(from + 49, 120), 120), page_size: 50 } };
    });
    const all = await api.listAllEvaluations('acme', 'main');
    expect(all.pages).toBe(3);
    expect(all.items).toHaveLength(120);
    expect(all.complete).toBe(true);
  });

  it('reports unknown keys of every page once', async () => {
    const api = await setup((request) => {
      const page = pageOf(request.url);
      const body = evaluationPage(page, page * 100 - 99, page * 100, 200);
      return { body: page === 2 ? { ...body, cursor: 'next' } : body };
    });
    const all = await api.listAllEvaluations('acme', 'main');
    expect(all.unknownKeys).toEqual(['$.cursor']);
  });
});
