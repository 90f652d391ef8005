/**
 * Output of a bulk apply: the plan (`--dry-run`) and the final report. Rows are named by their row
 * number in the decisions file so the operator can find them; every cell passes through terminalSafe.
 */
import type { UpdateFindingRequest } from '../api/schemas.js';
import type { ApplyReport, RowOutcome } from '../triage/apply-decisions.js';
import type { ApplyPlan, PlannedSkip } from '../triage/apply-plan.js';
import type { DecisionRow } from '../triage/decisions-file.js';
import { renderTable } from '../triage/format-table.js';
import { TRIAGE_FIELDS } from '../triage/triage-request.js';
import { outcomeErrorText } from '../triage/send-change.js';
import { cliOptionName } from './option-names.js';

const CHECK_UNKNOWN =
  'Their PATCH may or may not have been applied, so they were NOT sent again. Check each finding in the ' +
  'service (its review history shows whether the change arrived). If a change did not arrive, re-run with ' +
  '--resend-unknown; if it did, nothing more is needed.';

/** `--dry-run`: what would be sent and what the journal lets us skip. Nothing was sent. */
export function formatPlan(plan: ApplyPlan, journalPath: string): string {
  const parts = [
    `Dry run: nothing was sent. ${plan.toSend.length} row(s) would be sent; ` +
      `${plan.alreadyApplied.length} already applied per the journal ${journalPath}; ` +
      `${plan.unresolvedUnknown.length} with an unknown earlier outcome would be held back.\n`,
  ];
  if (plan.toSend.length > 0) parts.push(`Would send:\n${changesTable(plan.toSend)}`);
  if (plan.alreadyApplied.length > 0)
    parts.push(`Already applied (skipped):\n${skipTable(plan.alreadyApplied)}`);
  if (plan.unresolvedUnknown.length > 0) {
    parts.push(`Unknown outcome in an earlier run (held back):\n${skipTable(plan.unresolvedUnknown)}`);
  }
  return parts.join('\n');
}

/** The final report of a run, for stdout. */
export function formatApplyReport(report: ApplyReport): string {
  const { plan } = report;
  const parts = [
    `Applied ${report.applied.length} of ${plan.toSend.length} row(s) sent in this run; ` +
      `${plan.alreadyApplied.length} already applied earlier (skipped)` +
      (plan.unresolvedUnknown.length > 0
        ? `; ${plan.unresolvedUnknown.length} held back (unknown outcome in an earlier run)`
        : '') +
      `. Journal: ${report.journalPath}\n`,
  ];
  if (report.stoppedBecause !== undefined) {
    parts.push(
      `The run stopped early (${report.stoppedBecause}); ${report.notAttempted.length} row(s) not sent.\n`,
    );
  }
  if (report.appliedWithWarning.length > 0) {
    parts.push(
      `Applied, but the response did not match the API schema (${report.appliedWithWarning.length}); ` +
        `do not send these again, the raw bodies are in the journal:\n${outcomeTable(report.appliedWithWarning, 'warning')}`,
    );
  }
  if (report.failed.length > 0) {
    parts.push(
      `Failed (${report.failed.length}); nothing changed for these, safe to send again:\n${outcomeTable(report.failed, 'error')}`,
    );
  }
  if (report.outcomeUnknown.length > 0) {
    parts.push(
      `Outcome unknown (${report.outcomeUnknown.length}). ${CHECK_UNKNOWN}\n${outcomeTable(report.outcomeUnknown, 'error')}`,
    );
  }
  if (plan.unresolvedUnknown.length > 0) {
    parts.push(
      `Unknown outcome in an earlier run, held back (${plan.unresolvedUnknown.length}). ${CHECK_UNKNOWN}\n` +
        skipTable(plan.unresolvedUnknown),
    );
  }
  if (report.remainingFile !== undefined) {
    parts.push(
      `Rows left to do (failed or not sent): ${report.failed.length + report.notAttempted.length}, written to ` +
        `${report.remainingFile}. Re-running either file sends only what is left.\n`,
    );
  }
  return parts.join('\n');
}

/** `finding_status=false_positive, notes="…"`: the fields a row sets. */
export function describeRequest(request: UpdateFindingRequest): string {
  return TRIAGE_FIELDS.filter((field) => request[field] !== undefined)
    .map((field) =>
      field === 'notes' ? `notes=${JSON.stringify(request.notes)}` : `${field}=${request[field]}`,
    )
    .join(', ');
}

function changesTable(rows: readonly DecisionRow[]): string {
  return renderTable(
    [
      { header: 'Row' },
      { header: 'Finding' },
      { header: 'Status' },
      { header: 'Type' },
      { header: 'Severity' },
      { header: 'Notes', maxWidth: 60 },
    ],
    rows.map((row) => [
      String(row.row),
      row.findingId,
      row.request.finding_status ?? '',
      row.request.finding_type ?? '',
      row.request.severity ?? '',
      row.request.notes === undefined || row.request.notes === null ? '' : JSON.stringify(row.request.notes),
    ]),
  );
}

function skipTable(skips: readonly PlannedSkip[]): string {
  return renderTable(
    [
      { header: 'Row' },
      { header: 'Finding' },
      { header: 'Journaled at' },
      { header: 'Change', maxWidth: 80 },
    ],
    skips.map(({ row, entry }) => [String(row.row), row.findingId, entry.time, describeRequest(row.request)]),
  );
}

function outcomeTable(outcomes: readonly RowOutcome[], detail: 'error' | 'warning'): string {
  return renderTable(
    [
      { header: 'Row' },
      { header: 'Finding' },
      { header: 'HTTP' },
      { header: 'Change', maxWidth: 60 },
      { header: detail === 'error' ? 'Error' : 'Warning', maxWidth: 160 },
    ],
    outcomes.map((outcome) => {
      const { row, entry } = outcome;
      return [
        String(row.row),
        row.findingId,
        entry.http_status === null ? '—' : String(entry.http_status),
        describeRequest(row.request),
        (detail === 'error' ? outcomeErrorText(outcome, cliOptionName) : entry.warning) ?? '',
      ];
    }),
  );
}
