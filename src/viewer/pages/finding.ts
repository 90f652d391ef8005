/**
 * One finding (attack run) of one snapshot: its figures as the metrics layer counts them, its
 * compliance tags with each category's state, its trials (candidate and response parts, judge
 * reasoning, tool calls; TRIALS_PER_PAGE a page), its triage history (the service's review events and
 * the local triage journal) and every snapshot it appears in.
 */
import { asText, cellText, fullText, href, type Html, markup, shortText } from '../html.js';
import { frameworkTitle, FRAMEWORK_KEYS } from '../framework-tags.js';
import { tableHtml, type ViewTable } from '../table.js';
import type { Row } from '../viewer-database.js';
import { runTagsSql } from '../../warehouse/run-compliance-tags.js';
import { runTrialsCondition } from '../../warehouse/run-trials.js';
import {
  csvHref,
  PageError,
  pageNumber,
  param,
  selfHref,
  type PageContext,
  type PageResult,
} from './page.js';

/** Trials per page of a finding (paged in SQL); the CSV holds up to TRIAL_CSV_CAP. */
export const TRIALS_PER_PAGE = 25;
export const TRIAL_CSV_CAP = 10_000;

const FINDING_SQL = `
SELECT f.*, r.best_candidate, r.best_response, r.compliance_tags, r.transforms_applied, r.attacker_model,
       r.target_model, s.fetched_at
FROM metric_findings f
JOIN snapshots s ON s.snapshot_id = f.snapshot_id
LEFT JOIN attack_runs r ON r.snapshot_id = f.snapshot_id AND r.attack_run_id = f.attack_run_id AND r.project_key = f.project_key
WHERE f.snapshot_id = $1 AND f.attack_run_id = $2
LIMIT 1`;

/** A run's trials (run-trials.ts: its assessment, attack and goal in its snapshot), the run's key bound. */
const TRIALS_OF_RUN = runTrialsCondition('trials', {
  snapshot_id: '$1',
  project_key: '$2',
  assessment_id: '$3',
  attack_name: '$4',
  goal: '$5',
});

const TRIALS_SQL = `
SELECT trial_ordinal, trial_index, trial_status, score, is_jailbreak, candidate, response, judge_reasoning,
       transforms, tool_call_count, tool_call_list, candidate_part_list, response_part_list
FROM trials
WHERE ${TRIALS_OF_RUN}
ORDER BY trial_ordinal
LIMIT $6 OFFSET $7`;

const TRIAL_COUNT_SQL = `SELECT count(*) AS n FROM trials WHERE ${TRIALS_OF_RUN}`;

const TAG_STATES_SQL = `
SELECT c.framework, c.tag, c.state
FROM metric_compliance_categories c
JOIN attack_runs r ON r.snapshot_id = c.snapshot_id AND r.project_key = c.project_key
WHERE r.snapshot_id = $1 AND r.attack_run_id = $2 AND c.project_key = $3 AND (${FRAMEWORK_KEYS.map(
  (key) => `(c.framework = '${key}' AND list_contains(${runTagsSql(key, 'r')}, c.tag))`,
).join(' OR ')})
ORDER BY c.framework, c.tag`;

const REVIEWS_SQL = `
SELECT snapshot_id, updated_at, updated_by, original_status, updated_status, original_severity, updated_severity,
       updated_finding_type, reasoning
FROM review_events WHERE finding_id = $1
QUALIFY row_number() OVER (PARTITION BY coalesce(event_key, CAST(ordinal AS VARCHAR)) ORDER BY snapshot_id DESC) = 1
ORDER BY updated_at NULLS LAST, event_key`;

const JOURNAL_SQL = `
SELECT journal_time, journal_source, finding_status, severity, finding_type, notes
FROM findings WHERE attack_run_id = $1 AND origin = 'journal'
ORDER BY journal_time NULLS LAST, ordinal`;

const APPEARANCES_SQL = `
SELECT f.snapshot_id, s.fetched_at, f.severity, f.finding_status, f.best_score
FROM metric_findings f JOIN snapshots s ON s.snapshot_id = f.snapshot_id
WHERE f.attack_run_id = $1
ORDER BY s.fetched_at, f.snapshot_id`;

function parts(list: unknown): Html {
  if (!Array.isArray(list) || list.length === 0) return markup``;
  return markup`<ul>
    ${(list as Record<string, unknown>[]).map(
      (part) =>
        markup`<li>
          ${asText(part.kind ?? 'part')}${part.variant ? ` (${asText(part.variant)})` : ''}${
            part.caption ? markup`: ${cellText(part.caption)}` : ''
          }${part.text ? fullText(part.text) : ''}
        </li>`,
    )}
  </ul>`;
}

function toolCalls(list: unknown): Html {
  if (!Array.isArray(list) || list.length === 0) return markup`<p class="muted">No tool call.</p>`;
  return markup`<ul>
    ${list.map((call) => markup`<li>${fullText(JSON.stringify(call))}</li>`)}
  </ul>`;
}

function trialPager(context: PageContext, page: number, total: number): Html {
  const pages = Math.max(1, Math.ceil(total / TRIALS_PER_PAGE));
  if (pages === 1) return markup``;
  const link = (to: number, label: string, rel: string): Html =>
    markup`<a href="${selfHref(context, { trials_page: to })}#trials" rel="${rel}">${label}</a>`;
  return markup`<nav class="pages" aria-label="Trial pages">
    ${page > 1 ? link(page - 1, 'Previous trials', 'prev') : ''}<span>Trials page ${page} of ${pages}</span>${
      page < pages ? link(page + 1, 'Next trials', 'next') : ''
    }
  </nav>`;
}

function trialSection(trial: Row): Html {
  return markup`<section class="trial" aria-label="Trial ${asText(trial.trial_ordinal)}">
    <h3>
      Trial ${asText(trial.trial_index ?? trial.trial_ordinal)} · score ${asText(trial.score ?? '—')} ·
      ${trial.is_jailbreak === true ? 'jailbreak' : 'no jailbreak'} · ${asText(trial.trial_status ?? '')}
    </h3>
    <h4>Candidate</h4>
    ${fullText(trial.candidate)}${parts(trial.candidate_part_list)}
    <h4>Response</h4>
    ${fullText(trial.response)}${parts(trial.response_part_list)}
    <h4>Judge reasoning</h4>
    ${fullText(trial.judge_reasoning)}
    <h4>Tool calls</h4>
    ${toolCalls(trial.tool_call_list)}
  </section>`;
}

export async function findingPage(context: PageContext): Promise<PageResult> {
  const snapshot = param(context, 'snapshot');
  const run = param(context, 'run');
  if (snapshot === undefined || run === undefined) {
    throw new PageError(400, 'A finding page needs the snapshot and run parameters.');
  }
  const finding = (await context.db.rows(FINDING_SQL, [snapshot, run]))[0];
  if (finding === undefined) throw new PageError(404, `No finding ${run} in snapshot ${snapshot}.`);
  const projectKey = asText(finding.project_key);
  const runKey = [
    snapshot,
    projectKey,
    asText(finding.assessment_id),
    asText(finding.attack_name),
    asText(finding.goal),
  ];
  const csv = context.download === 'trials';
  const trialPage = pageNumber(context, 'trials_page');
  const trials = await context.db.rows(TRIALS_SQL, [
    ...runKey,
    csv ? TRIAL_CSV_CAP : TRIALS_PER_PAGE,
    csv ? 0 : (trialPage - 1) * TRIALS_PER_PAGE,
  ]);
  const trialCount = Number((await context.db.rows(TRIAL_COUNT_SQL, runKey))[0]?.n ?? 0);
  const tags = await context.db.rows(TAG_STATES_SQL, [snapshot, run, projectKey]);
  const reviews = await context.db.rows(REVIEWS_SQL, [run]);
  const journal = await context.db.rows(JOURNAL_SQL, [run]);
  const appearances = await context.db.rows(APPEARANCES_SQL, [run]);

  const tables: ViewTable[] = [
    {
      id: 'trials',
      caption: `Trials of this attack run (${trialCount})`,
      columns: [
        { key: 'trial_ordinal', label: 'Trial', numeric: true },
        { key: 'score', label: 'Score', numeric: true },
        { key: 'is_jailbreak', label: 'Jailbreak' },
        { key: 'candidate', label: 'Candidate', role: 'text' },
        { key: 'response', label: 'Response', role: 'text' },
        { key: 'judge_reasoning', label: 'Judge reasoning' },
        { key: 'tool_call_count', label: 'Tool calls', numeric: true },
      ],
      rows: trials,
    },
    {
      id: 'compliance',
      caption: 'Compliance categories of this attack run',
      columns: [
        { key: 'framework', label: 'Framework', cell: (r) => frameworkTitle(asText(r.framework)) },
        { key: 'tag', label: 'Category' },
        {
          key: 'state',
          label: 'State in this snapshot',
          cell: (r) => markup`<span class="pill state-${asText(r.state)}">${asText(r.state)}</span>`,
        },
      ],
      rows: tags,
    },
    {
      id: 'reviews',
      caption: 'Review events (the service)',
      columns: [
        'updated_at',
        'updated_by',
        'original_status',
        'updated_status',
        'original_severity',
        'updated_severity',
        'reasoning',
      ].map((key) => ({ key, label: key.replace(/_/gu, ' ') })),
      rows: reviews,
    },
    {
      id: 'journal',
      caption: 'Triage journal (this machine)',
      columns: ['journal_time', 'journal_source', 'finding_status', 'severity', 'finding_type', 'notes'].map(
        (key) => ({ key, label: key.replace(/_/gu, ' ') }),
      ),
      rows: journal,
    },
    {
      id: 'snapshots',
      caption: 'Snapshots this finding appears in',
      columns: [
        {
          key: 'snapshot_id',
          label: 'Snapshot',
          cell: (r) =>
            markup`<a href="${href('/finding', { snapshot: asText(r.snapshot_id), run })}"
              >${cellText(r.snapshot_id)}</a
            >`,
        },
        { key: 'fetched_at', label: 'Fetched' },
        { key: 'severity', label: 'Severity' },
        { key: 'finding_status', label: 'Status' },
        { key: 'best_score', label: 'Best score', numeric: true },
      ],
      rows: appearances,
    },
  ];
  const [trialTable, ...rest] = tables;
  const facts: [string, unknown][] = [
    ['Project', finding.project_key],
    ['Assessment', finding.assessment_name],
    ['Attack', finding.attack_name],
    ['Goal category', finding.goal_category],
    ['Severity', finding.severity],
    ['Best score', finding.best_score],
    ['Status', finding.finding_status],
    ['Open', finding.is_open],
    ['Transforms', Array.isArray(finding.transforms_applied) ? finding.transforms_applied.join(', ') : null],
    ['Target model', finding.target_model],
    ['Snapshot', finding.snapshot_id],
  ];
  const body = markup`<dl class="excerpt">
      ${facts.map(
        ([label, value]) =>
          markup`<dt>${label}</dt>
            <dd>${cellText(value)}</dd>`,
      )}
    </dl>
    <h2>Goal</h2>
    ${fullText(finding.goal)}
    <h2>Best candidate</h2>
    ${fullText(finding.best_candidate)}
    <h2>Best response</h2>
    ${fullText(finding.best_response)}
    ${rest.map(
      (table) =>
        markup`<h2>${table.caption}</h2>
          ${tableHtml(table, csvHref(context, table))}`,
    )}
    <h2 id="trials">Trials</h2>
    ${trialTable === undefined ? '' : tableHtml(trialTable, csvHref(context, trialTable), 'No trial of this attack run was loaded.')}
    ${trialPager(context, trialPage, trialCount)} ${trials.map(trialSection)}
    <p>
      <a href="${href('/report/executive', { project: projectKey, snapshot })}"
        >Executive report of ${projectKey}</a
      >
    </p>`;
  return { title: `Finding: ${shortText(finding.goal ?? run, 80)}`, body, tables };
}
