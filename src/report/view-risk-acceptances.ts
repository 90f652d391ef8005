/**
 * The executive report's "Risk acceptances to review" as templates see it: acceptances already over
 * (the finding is open again) and those ending within the window, data text escaped. Owner and reason
 * are free text someone typed: shaped and escaped like notes.
 */
import type { RiskAcceptanceReview, RiskAcceptanceRow } from './model.js';
import { severityClass, type ViewText } from './view-text.js';

function rowView(row: RiskAcceptanceRow, text: ViewText) {
  return {
    finding: text.code(row.findingId),
    attack: text.maybeLabel(row.attack),
    goalCategory: text.maybeLabel(row.goalCategory),
    severity: text.label(row.severity),
    severityClass: severityClass(row.severity),
    owner: text.maybeLabel(row.owner),
    reason: text.excerpt(row.reason),
    until: text.label(row.until),
    daysLeft: row.daysLeft,
  };
}

/** The section's view: `shown` only when some acceptance ended or ends within the window. */
export function riskAcceptancesView(review: RiskAcceptanceReview | undefined, text: ViewText) {
  const rows = review?.rows ?? [];
  const expired = rows.filter((row) => row.state === 'expired').map((row) => rowView(row, text));
  const expiring = rows.filter((row) => row.state === 'expiring').map((row) => rowView(row, text));
  return {
    shown: rows.length > 0,
    windowDays: review?.windowDays ?? 0,
    expired,
    expiring,
  };
}
