/**
 * A dated risk acceptance: who accepted a finding's risk, why, and until which day. Compliance
 * programmes accept a risk for a time (DefectDojo's risk acceptance, Prowler's mutelist), never
 * forever. The service's PATCH takes only status and notes (spec), so the acceptance lives in the
 * triage journal (the `acceptance` key of the line that set accepted_risk) and from there in the
 * snapshot (triage/acceptances.json) and the warehouse (risk_acceptances), where a finding whose
 * acceptance has expired counts as open again.
 *
 * `until` is the last day the acceptance holds (UTC): it expires at the start of the next day.
 */
import { userInfo } from 'node:os';

export interface RiskAcceptance {
  /** Who accepted the risk (`--owner`, `accepted_by`; default the local user name). */
  owner: string;
  /** Why (`--reason`, `acceptance_reason`). */
  reason: string;
  /** Last day it holds, YYYY-MM-DD (UTC). */
  until: string;
}

/** Decision-file columns / keys of an acceptance (flags: --until, --reason, --owner). */
export const ACCEPTANCE_FIELDS = ['accepted_until', 'acceptance_reason', 'accepted_by'] as const;
export type AcceptanceField = (typeof ACCEPTANCE_FIELDS)[number];

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/u;

/** Whether `text` is a real calendar date written YYYY-MM-DD. */
export function isCalendarDate(text: string): boolean {
  const match = DATE.exec(text);
  if (!match) return false;
  const date = new Date(`${text}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === text;
}

/** The instant an acceptance valid through `until` stops holding: 00:00 UTC the day after. */
export function acceptanceExpiresAt(until: string): string {
  const date = new Date(`${until}T00:00:00Z`);
  date.setUTCDate(date.getUTCDate() + 1);
  return date.toISOString();
}

/** The local user's name, as the default owner of an acceptance. */
export function defaultOwner(env: Readonly<Record<string, string | undefined>> = {}): string {
  const fromEnv = env.AIRT_TRIAGE_OWNER?.trim();
  if (fromEnv) return fromEnv;
  try {
    return userInfo().username;
  } catch {
    return 'unknown';
  }
}

/**
 * Checks an acceptance given with a change: until and reason come together, only with
 * finding_status accepted_risk. Returns the acceptance (or none) and the problems found.
 */
export function validateAcceptance(
  status: string | undefined,
  input: Partial<Record<AcceptanceField, string | undefined>>,
  owner: string | undefined,
): { acceptance: RiskAcceptance | undefined; problems: { field: AcceptanceField; message: string }[] } {
  const until = input.accepted_until?.trim();
  const reason = input.acceptance_reason?.trim();
  const by = input.accepted_by?.trim();
  const problems: { field: AcceptanceField; message: string }[] = [];
  if (until === undefined && reason === undefined && by === undefined)
    return { acceptance: undefined, problems };
  if (status?.trim() !== 'accepted_risk') {
    problems.push({
      field:
        until !== undefined ? 'accepted_until' : reason !== undefined ? 'acceptance_reason' : 'accepted_by',
      message: 'applies only with finding_status accepted_risk (a dated acceptance of the risk)',
    });
  }
  if (until === undefined || until === '') {
    problems.push({
      field: 'accepted_until',
      message: 'is missing: an acceptance needs the last day it holds (YYYY-MM-DD)',
    });
  } else if (!isCalendarDate(until)) {
    problems.push({
      field: 'accepted_until',
      message: `${JSON.stringify(until)} is not a date written YYYY-MM-DD`,
    });
  }
  if (reason === undefined || reason === '') {
    problems.push({ field: 'acceptance_reason', message: 'is missing: say why the risk is accepted' });
  }
  if (by === '') problems.push({ field: 'accepted_by', message: 'is empty' });
  if (problems.length > 0) return { acceptance: undefined, problems };
  return {
    acceptance: { owner: by ?? owner ?? 'unknown', reason: reason ?? '', until: until ?? '' },
    problems,
  };
}
