/**
 * The data-quality section's cross-checks as templates see them: every service total beside its
 * recomputation, disagreements first and marked in words (never by colour alone), with a one-line
 * count ("22 service totals checked: 22 agree"). A portfolio shows one summary line per project and
 * only the rows that need attention (disagreements and checks not compared); the JSON report and
 * `@consistency` list every row.
 */
import { projectLabel, type ConsistencyCheckEntry, type ProjectRef } from './model.js';
import type { ViewText } from './view-text.js';

/** The result column's words; DISAGREES is upper case so it stands out in plain text too. */
const RESULT_WORDS: Record<ConsistencyCheckEntry['status'], string> = {
  disagrees: 'DISAGREES',
  not_compared: 'not compared',
  agrees: 'agrees',
};

/** A cross-check value: up to 4 decimals, no trailing zeros; unknown when the side is missing. */
function formatCheckValue(value: number | null): string {
  return value === null ? 'unknown' : String(Math.round(value * 1e4) / 1e4);
}

/** "22 service totals checked: 1 disagrees, 2 not compared, 19 agree" (zero counts left out). */
export function consistencySummary(checks: readonly ConsistencyCheckEntry[]): string {
  if (checks.length === 0) return 'No service totals to check.';
  const count = (status: ConsistencyCheckEntry['status']) =>
    checks.filter((check) => check.status === status).length;
  const parts = [
    [count('disagrees'), 'disagrees', 'disagree'],
    [count('not_compared'), 'not compared', 'not compared'],
    [count('agrees'), 'agrees', 'agree'],
  ] as const;
  const counted = parts.filter(([n]) => n > 0).map(([n, one, many]) => `${n} ${n === 1 ? one : many}`);
  const noun = checks.length === 1 ? 'service total' : 'service totals';
  return `${checks.length} ${noun} checked: ${counted.join(', ')}`;
}

const ORDER: Record<ConsistencyCheckEntry['status'], number> = { disagrees: 0, not_compared: 1, agrees: 2 };

/** Disagreements first, then not compared, then agreeing checks; stable within a group. */
function attentionFirst(checks: readonly ConsistencyCheckEntry[]): ConsistencyCheckEntry[] {
  return checks
    .map((check, index) => ({ check, index }))
    .sort((a, b) => ORDER[a.check.status] - ORDER[b.check.status] || a.index - b.index)
    .map(({ check }) => check);
}

function rowView(text: ViewText, check: ConsistencyCheckEntry, multiProject: boolean) {
  return {
    project: multiProject ? text.label(projectLabel(check.project)) : null,
    check: text.code(check.check),
    serviceValue: formatCheckValue(check.serviceValue),
    recomputedValue: formatCheckValue(check.recomputedValue),
    disagrees: check.status === 'disagrees',
    result: RESULT_WORDS[check.status],
    detail: text.maybeLabel(check.detail),
  };
}

const projectKey = (project: ProjectRef): string =>
  JSON.stringify([project.workspace ?? null, project.key, project.id]);

/** The cross-checks' view; `listed` holds the rows the table shows (all, or in a portfolio the ones needing attention). */
export function consistencyChecksView(
  text: ViewText,
  checks: readonly ConsistencyCheckEntry[] | undefined,
  multiProject: boolean,
) {
  const all = attentionFirst(checks ?? []);
  const projects: { project: ProjectRef; checks: ConsistencyCheckEntry[] }[] = [];
  for (const check of all) {
    const key = projectKey(check.project);
    const group = projects.find((entry) => projectKey(entry.project) === key);
    if (group === undefined) projects.push({ project: check.project, checks: [check] });
    else group.checks.push(check);
  }
  const listed = multiProject ? all.filter((check) => check.status !== 'agrees') : all;
  return {
    any: all.length > 0,
    summary: consistencySummary(all),
    perProject: multiProject
      ? projects.map((entry) => ({
          project: text.label(projectLabel(entry.project)),
          summary: consistencySummary(entry.checks),
        }))
      : [],
    rows: listed.map((check) => rowView(text, check, multiProject)),
  };
}
