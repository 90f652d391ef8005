/**
 * Two snapshots side by side: the `diff` command's own computation (src/diff), so the new, resolved
 * and regressed findings here are the ones `airt-report diff` and the gates see. Defaults: the two
 * newest snapshots.
 */
import type { SnapshotDiff } from '../../diff/diff-report.js';
import type { FindingRecord } from '../../diff/finding-lifecycle.js';
import { diffSnapshots } from '../../diff/snapshot-diff.js';
import { asText, cellText, href, type Html, markup } from '../html.js';
import { tableHtml, type TableColumn, type ViewTable } from '../table.js';
import { PAGE_TIME_LIMIT_MS, type Row } from '../viewer-database.js';
import { csvHref, PageError, param, type PageContext, type PageResult } from './page.js';

const SNAPSHOTS_SQL = `SELECT snapshot_id, fetched_at, org, workspace FROM snapshots ORDER BY fetched_at DESC NULLS LAST, snapshot_id DESC`;

function record(project: string, finding: FindingRecord, snapshot: string, extra: Row = {}): Row {
  return {
    project,
    snapshot_id: snapshot,
    attack_run_id: finding.attack_run_id,
    severity: finding.severity,
    score: finding.score,
    goal: finding.goal,
    goal_category: finding.goal_category,
    attack_name: finding.attack_name,
    finding_status: finding.finding_status,
    ...extra,
  };
}

function columns(extra: TableColumn[]): TableColumn[] {
  const goal = (r: Row): Html =>
    r.attack_run_id === null
      ? cellText(r.goal)
      : markup`<a href="${href('/finding', { snapshot: asText(r.snapshot_id), run: asText(r.attack_run_id) })}"
          >${cellText(r.goal)}</a
        >`;
  return [
    { key: 'project', label: 'Project' },
    { key: 'severity', label: 'Severity' },
    { key: 'score', label: 'Score', numeric: true },
    { key: 'goal', label: 'Goal', cell: goal, role: 'text' },
    { key: 'attack_name', label: 'Attack' },
    ...extra,
  ];
}

function lifecycleTables(diff: SnapshotDiff): ViewTable[] {
  const from = diff.from?.snapshot_id ?? '';
  const to = diff.to.snapshot_id;
  return [
    {
      id: 'new',
      caption: 'New findings',
      columns: columns([]),
      rows: diff.projects.flatMap((p) => p.findings.new.map((f) => record(p.project, f, to))),
    },
    {
      id: 'regressed',
      caption: 'Regressed findings',
      columns: columns([{ key: 'reasons', label: 'What got worse' }]),
      rows: diff.projects.flatMap((p) =>
        p.findings.regressed.map((f) => record(p.project, f.to, to, { reasons: f.reasons.join('; ') })),
      ),
    },
    {
      id: 'resolved',
      caption: 'Resolved findings',
      columns: columns([{ key: 'reason', label: 'Why' }]),
      rows: diff.projects.flatMap((p) =>
        p.findings.resolved.map((f) => record(p.project, f.from, from, { reason: f.reason })),
      ),
    },
  ];
}

function snapshotSelect(name: string, label: string, ids: string[], current: string): Html {
  return markup`<label
    >${label}<select name="${name}">
      ${ids.map((id) => markup`<option value="${id}" ${id === current ? markup` selected` : ''}>${id}</option>`)}
    </select></label
  >`;
}

export async function comparePage(context: PageContext): Promise<PageResult> {
  const snapshots = (await context.db.memo('snapshots', () => context.db.rows(SNAPSHOTS_SQL))).map((row) =>
    asText(row.snapshot_id),
  );
  const to = param(context, 'to') ?? snapshots[0];
  const from = param(context, 'from') ?? snapshots[1];
  if (to === undefined || from === undefined) {
    return {
      title: 'Compare snapshots',
      body: markup`<p class="empty">The warehouse holds fewer than two snapshots: nothing to compare.</p>`,
      tables: [],
    };
  }
  if (!snapshots.includes(to) || !snapshots.includes(from))
    throw new PageError(404, 'No such snapshot in this warehouse.');
  const diff = await context.db.memo(JSON.stringify(['compare', from, to]), () =>
    context.db.exclusive(PAGE_TIME_LIMIT_MS, (conn) => diffSnapshots(conn, { from, to })),
  );
  const tables = lifecycleTables(diff);
  const counts = diff.projects.map(
    (p) =>
      markup`<li>
        ${cellText(p.project)}: ${p.counts.new} new, ${p.counts.regressed} regressed, ${p.counts.resolved}
        resolved, ${p.counts.persisting} persisting
      </li>`,
  );
  const body = markup`<form class="filters" method="get" action="/compare" aria-label="Snapshots to compare">
      ${snapshotSelect('from', 'Earlier snapshot', snapshots, from)}
      ${snapshotSelect('to', 'Later snapshot', snapshots, to)}
      <button type="submit">Compare</button>
    </form>
    <ul>
      ${counts}
    </ul>
    ${tables.map(
      (table) =>
        markup`<h2>${table.caption}</h2>
          ${tableHtml(table, csvHref(context, table), 'None.')}`,
    )}`;
  return { title: 'Compare snapshots', body, tables };
}
