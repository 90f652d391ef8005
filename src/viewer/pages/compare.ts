/**
 * Two snapshots side by side: the `diff` command's own computation (src/diff), so the new, resolved
 * and regressed findings here are the ones `airt-report diff` and the gates see. Defaults: the two
 * newest snapshots. What the diff cannot compare is shown, never left to read as "no change": a
 * partial snapshot and the projects it holds no summary of (not compared), the findings of unknown
 * severity (their attack run lacks its required best_score) in their own table, and a project the
 * later snapshot no longer lists, with its findings no longer reported (never counted as resolved).
 */
import type {
  DataQualityNote,
  MissingSummaryNote,
  PartialSnapshot,
  ProjectDiff,
  SnapshotDiff,
} from '../../diff/diff-report.js';
import { knownSide, type FindingRecord, type NotComparableFinding } from '../../diff/finding-lifecycle.js';
import { diffSnapshots } from '../../diff/snapshot-diff.js';
import type { FailedRequestRef } from '../../warehouse/snapshot-lookup.js';
import { asText, cellText, href, type Html, markup, shortText } from '../html.js';
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
    {
      id: 'no_longer_reported',
      caption: 'No longer reported (project not in the later snapshot)',
      columns: columns([]),
      rows: diff.projects.flatMap((p) =>
        p.findings.no_longer_reported.map((f) => record(p.project, f, from)),
      ),
    },
    {
      id: 'not_comparable',
      caption: 'Findings not comparable (severity unknown)',
      columns: columns([{ key: 'why', label: 'Why not comparable' }]),
      rows: diff.projects.flatMap((p) =>
        p.findings.not_comparable.map((pair) => notComparableRecord(p.project, pair, from, to)),
      ),
    },
  ];
}

/** Which snapshot of the comparison, in words. */
const SIDE_WORDS = { from: 'the earlier snapshot', to: 'the later snapshot' } as const;

/**
 * A finding whose severity is unknown on a side, shown as last known (its page is that snapshot's),
 * with its severity on each side and why it is unknown.
 */
function notComparableRecord(project: string, pair: NotComparableFinding, from: string, to: string): Row {
  const shown = knownSide(pair);
  const severity = (finding: FindingRecord | null): string =>
    finding === null ? 'absent' : finding.severity;
  const where = pair.unknown_in === 'both' ? 'both snapshots' : SIDE_WORDS[pair.unknown_in];
  return record(project, shown, shown === pair.from ? from : to, {
    why:
      `severity ${severity(pair.from)} → ${severity(pair.to)}: unknown in ${where} ` +
      '(the attack run lacks its required best_score and no triage set one)',
  });
}

/** A failed request as `GET /path (HTTP 500)`; the path holds data (project keys), so it is shaped. */
function requestText(request: FailedRequestRef): string {
  return `${shortText(`${request.method} ${request.path}`)} (${request.status === null ? 'no response' : `HTTP ${request.status}`})`;
}

function isMissingSummary(note: DataQualityNote): note is MissingSummaryNote {
  return 'kind' in note && note.kind === 'summary_missing';
}

/** A partial snapshot of the comparison: what failed, and the projects it lacks (not compared). */
function partialSnapshotNote(partial: PartialSnapshot): Html {
  const lacking = partial.projects_without_summary;
  const failed = partial.failed_requests.length;
  return markup`<p class="callout partial-snapshot">
    <strong>Partial snapshot:</strong> ${partial.snapshot_id} (${SIDE_WORDS[partial.side]}) is partial:
    ${failed} ${failed === 1 ? 'request' : 'requests'} failed for good, so what it lacks is not compared (never
    counted as resolved or new).${
      lacking.length === 0
        ? ''
        : markup` It holds no summary of ${lacking.length === 1 ? 'project' : 'projects'}
          ${lacking.map((key, i) => markup`${i === 0 ? '' : ', '}${cellText(key)}`)}.`
    }
  </p>`;
}

/** One project's line: its counts, or why it was not compared. */
function projectLine(p: ProjectDiff): Html {
  if (!p.in_current) {
    const gone = p.counts.no_longer_reported;
    const unknown = p.counts.not_comparable;
    return markup`<li class="removed">
      ${cellText(p.project)}: removed, not in the later snapshot (the service no longer lists it, or the
      snapshot was not asked for it). ${gone} open ${gone === 1 ? 'finding' : 'findings'} of it (severity
      low or worse) no longer reported, not counted as resolved: nothing says they were fixed${
        unknown === 0
          ? ''
          : markup`; ${unknown} ${unknown === 1 ? 'finding' : 'findings'} of unknown severity, listed as not
            comparable`
      }.
    </li>`;
  }
  if (!p.compared) {
    const notes = p.data_quality.filter(isMissingSummary);
    return markup`<li class="not-compared">
      ${cellText(p.project)}: not compared.
      ${notes.map(
        (note) =>
          markup`${note.snapshot_id} (${SIDE_WORDS[note.side]}) is partial and holds no summary of this
          project${
            note.failed_requests.length === 0
              ? ''
              : markup` (${note.failed_requests.map(requestText).join(', ')} failed)`
          }.`,
      )}
      No finding of it is counted as new, resolved, regressed or persisting: what changed is unknown.
    </li>`;
  }
  const unknown = p.counts.not_comparable;
  return markup`<li>
    ${cellText(p.project)}: ${p.counts.new} new, ${p.counts.regressed} regressed, ${p.counts.resolved}
    resolved, ${p.counts.persisting} persisting${
      unknown === 0
        ? ''
        : markup`; ${unknown} ${unknown === 1 ? 'finding' : 'findings'} not comparable (severity unknown:
          the attack run lacks its required best_score), in none of these counts`
    }
  </li>`;
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
  const counts = diff.projects.map(projectLine);
  const body = markup`<form class="filters" method="get" action="/compare" aria-label="Snapshots to compare">
      ${snapshotSelect('from', 'Earlier snapshot', snapshots, from)}
      ${snapshotSelect('to', 'Later snapshot', snapshots, to)}
      <button type="submit">Compare</button>
    </form>
    ${(diff.partial_snapshots ?? []).map(partialSnapshotNote)}
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
