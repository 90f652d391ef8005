/**
 * Output of a single triage: the finding's new triage state and its review history as a readable
 * table, or the whole result as JSON. Notes and reasoning are attacker-influenced: every cell goes
 * through terminalSafe (in renderTable / renderKeyValues) and JSON through terminalSafeJson.
 */
import type { FindingDetail, FindingReviewEvent } from '../api/schemas.js';
import { renderKeyValues, renderTable } from './format-table.js';
import { terminalSafeJson } from './terminal-text.js';
import type { TriageFindingResult } from './triage-finding.js';

const NONE = '—';

/** The table view of an applied change. */
export function formatTriageResultTable(result: TriageFindingResult): string {
  if (result.alreadyApplied === true)
    return (
      `Nothing was sent: the journal ${result.journalPath} shows this change to finding ` +
      `${result.entry.finding_id} applied at ${result.entry.time}, and no change of it since.\n`
    );
  if (!result.finding) {
    // Applied, but the body did not fit the schema: show what arrived rather than guess at fields.
    return `Change applied to finding ${result.entry.finding_id}. The response as received:\n${terminalSafeJson(result.entry.finding)}\n`;
  }
  return formatFindingTable(result.finding);
}

/** New triage state, then the review history (original → updated, who, when), oldest first. */
function formatFindingTable(finding: FindingDetail): string {
  const state = renderKeyValues([
    ['Finding', finding.id],
    ['Attack', finding.attack_name],
    ['Goal', finding.goal],
    ['Status', finding.finding_status],
    ['Type', finding.finding_type],
    ['Severity', finding.severity],
    ['Notes', finding.notes ?? NONE],
    ['Updated at', finding.updated_at ?? NONE],
  ]);
  const events = finding.review_events;
  const history =
    events.length === 0
      ? 'Review history: none returned by the service.\n'
      : `Review history (${events.length} event${events.length === 1 ? '' : 's'}, oldest first):\n` +
        renderTable(
          [
            { header: '#' },
            { header: 'When', maxWidth: 32 },
            { header: 'Who', maxWidth: 40 },
            { header: 'Status', maxWidth: 40 },
            { header: 'Type', maxWidth: 30 },
            { header: 'Severity', maxWidth: 24 },
            { header: 'Reasoning', maxWidth: 80 },
          ],
          events.map((event, index) => historyRow(event, index)),
        );
  return `${state}\n${history}`;
}

function historyRow(event: FindingReviewEvent, index: number): string[] {
  return [
    String(index + 1),
    event.updated_at ?? NONE,
    event.updated_by ?? NONE,
    change(event.original_status, event.updated_status),
    change(event.original_finding_type, event.updated_finding_type),
    change(event.original_severity, event.updated_severity),
    event.reasoning ?? '',
  ];
}

/** `open → false_positive`, or just `high` when unchanged. */
function change(from: string | null | undefined, to: string | null | undefined): string {
  const before = from ?? NONE;
  const after = to ?? NONE;
  return before === after ? after : `${before} → ${after}`;
}

/** The JSON view: the journal entry's fields plus the finding as returned. */
export function formatTriageResultJson(result: TriageFindingResult): string {
  const { entry } = result;
  return `${terminalSafeJson({
    finding_id: entry.finding_id,
    request: entry.request,
    outcome: entry.outcome,
    // True when nothing was sent: the journal's last change of the finding was this one, applied at
    // applied_at (the fields below are that line's).
    already_applied: result.alreadyApplied === true,
    ...(result.alreadyApplied === true ? { applied_at: entry.time } : {}),
    http_status: entry.http_status,
    warning: result.warning ?? null,
    journal: result.journalPath,
    finding: entry.finding,
  })}\n`;
}
