/**
 * The projects overview: the portfolio report's model (risk, ASR with its n, findings, per-framework
 * coverage cells, ASR trend) read by the report's own model builder, one row per project with links to
 * its findings, its framework pages and its reports, and the portfolio's charts.
 */
import { coverageCellState, coverageCellText } from '../../report/coverage-cell-state.js';
import type { PortfolioProjectRow } from '../../report/model.js';
import { overviewModel } from '../page-models.js';
import { formatCount, formatDecimal, formatPercent } from '../../number-format.js';
import { chartFigures } from '../charts.js';
import { asText, cellText, href, type Html, markup } from '../html.js';
import { tableHtml, type ViewTable } from '../table.js';
import { PAGE_TIME_LIMIT_MS } from '../viewer-database.js';
import { csvHref, type PageContext, type PageResult } from './page.js';

const LIGHT_CLASS = {
  failing: 'light-fail',
  insufficient_evidence: 'light-insufficient',
  passing: 'light-pass',
  not_tested: 'light-not-tested',
  unknown: 'light-not-tested',
} as const;

function asrWithN(row: PortfolioProjectRow): string {
  const n = row.overallAsrAttacks;
  const k = row.overallAsrSuccessful;
  return n === null || n === undefined
    ? formatPercent(row.overallAsr)
    : `${formatPercent(row.overallAsr)} (${formatCount(k)} of ${formatCount(n)} attacks)`;
}

function lights(row: PortfolioProjectRow): Html {
  return markup`${row.coverage.map((cell) => {
    const state = coverageCellState(cell);
    const link = href('/framework', {
      project: row.project.key,
      snapshot: row.snapshotId,
      framework: cell.framework,
    });
    return markup`<a class="light ${LIGHT_CLASS[state]}" href="${link}"
      >${cell.title}: ${coverageCellText(cell)}</a
    > `;
  })}`;
}

export async function overviewPage(context: PageContext): Promise<PageResult> {
  const { model, open } = await context.db.memo('overview', () =>
    context.db.exclusive(PAGE_TIME_LIMIT_MS, overviewModel),
  );
  const rows = model.projects.map((row) => ({
    project: row.project.name ?? row.project.key,
    project_key: row.project.key,
    snapshot_id: row.snapshotId,
    risk_score: row.riskScore,
    risk_level: row.riskLevel,
    overall_asr: row.overallAsr,
    asr_successful_attacks: row.overallAsrSuccessful ?? null,
    asr_attacks: row.overallAsrAttacks ?? null,
    findings_open: open.get(`${row.snapshotId} ${row.project.key}`) ?? null,
    frameworks: row.coverage.map((cell) => `${cell.framework}: ${coverageCellText(cell)}`).join('; '),
    row,
  }));
  const table: ViewTable = {
    id: 'projects',
    caption: 'Projects (newest snapshot of each)',
    columns: [
      {
        key: 'project',
        label: 'Project',
        cell: (r) =>
          markup`<a href="${href('/findings', { project: asText(r.project_key) })}">${cellText(r.project)}</a>`,
      },
      {
        key: 'risk_score',
        label: 'Risk',
        numeric: true,
        cell: (r) => `${formatDecimal(r.risk_score as number | null, 1)} ${asText(r.risk_level ?? '')}`,
      },
      {
        key: 'overall_asr',
        label: 'ASR (n)',
        numeric: true,
        cell: (r) => asrWithN(r.row as PortfolioProjectRow),
      },
      {
        key: 'findings_open',
        label: 'Open findings',
        numeric: true,
        cell: (r) =>
          markup`<a href="${href('/findings', { project: asText(r.project_key), status: 'open' })}"
            >${formatCount(r.findings_open as number | null)}</a
          >`,
      },
      { key: 'frameworks', label: 'Frameworks', cell: (r) => lights(r.row as PortfolioProjectRow) },
      {
        key: 'snapshot_id',
        label: 'Reports',
        cell: (r) =>
          markup`<a
              href="${href('/report/executive', { project: asText(r.project_key), snapshot: asText(r.snapshot_id) })}"
              >executive</a
            >
            ·
            <a
              href="${href('/report/compliance', { project: asText(r.project_key), snapshot: asText(r.snapshot_id) })}"
              >compliance</a
            >`,
      },
      { key: 'asr_successful_attacks', label: 'Successful attacks', numeric: true },
      { key: 'asr_attacks', label: 'Attacks', numeric: true },
    ],
    rows,
  };
  const body = markup`<p>
      Every figure is the reports' own (the warehouse's metric views).
      <a href="/report/portfolio">Portfolio report</a>
    </p>
    ${tableHtml(table, csvHref(context, table), 'The warehouse holds no project yet.')}
    ${await context.db.memo('overview-charts', () =>
      chartFigures(model, (name) => name.includes('trend') || name.includes('coverage')),
    )}`;
  return { title: 'Projects', body, tables: [table] };
}
