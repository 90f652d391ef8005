/**
 * Local validation of one triage change, before anything is sent. The PATCH changes a live service,
 * so every value is checked against the spec's enumerations (the message lists the allowed values),
 * the finding id must be a UUID, and a change with no field is refused: the spec leaves the service's
 * answer to an empty body open, so we never send one.
 */
import {
  FindingStatusSchema,
  FindingTypeSchema,
  SeveritySchema,
  type UpdateFindingRequest,
} from '../api/schemas.js';
import { validateAcceptance, type AcceptanceField, type RiskAcceptance } from './risk-acceptance.js';

/** The request fields a triage change may set, in the order they are shown and stored. */
export const TRIAGE_FIELDS = ['finding_status', 'finding_type', 'severity', 'notes'] as const;
export type TriageField = (typeof TRIAGE_FIELDS)[number];

/** Allowed values per enumerated field (spec, "Update finding triage"). */
export const TRIAGE_ENUMS = {
  finding_status: FindingStatusSchema.options,
  finding_type: FindingTypeSchema.options,
  severity: SeveritySchema.options,
} as const satisfies Partial<Record<TriageField, readonly string[]>>;

/** Unvalidated input: flag values or decision-file cells. `undefined` means "leave unchanged". */
export type TriageInput = Partial<Record<TriageField | AcceptanceField, string | undefined>>;

/** A change that passed every local check: a UUID (lower-cased) and a non-empty request body. */
export interface ValidTriageChange {
  findingId: string;
  request: UpdateFindingRequest;
  /** A dated acceptance (with finding_status accepted_risk): journaled, never sent to the service. */
  acceptance?: RiskAcceptance;
}

/** One problem: with the finding id, with one request field, or with the change as a whole. */
export interface TriageProblem {
  field: TriageField | AcceptanceField | 'finding_id' | 'change';
  message: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/iu;

/** True for an 8-4-4-4-12 hexadecimal id (any version bits: services emit non-RFC ids too). */
export function isUuid(value: string): boolean {
  return UUID.test(value);
}

/**
 * Checks one change and returns either the request to send or every problem found (never just the
 * first, so a decision file can be fixed in one pass). Enumerated values are trimmed; notes are kept
 * byte for byte.
 */
export function validateTriageChange(
  findingId: string,
  input: TriageInput,
  options: { owner?: string } = {},
): { ok: true; change: ValidTriageChange } | { ok: false; problems: TriageProblem[] } {
  const problems: TriageProblem[] = [];
  const id = findingId.trim();
  if (!id) problems.push({ field: 'finding_id', message: 'is missing' });
  else if (!isUuid(id)) {
    problems.push({ field: 'finding_id', message: `${JSON.stringify(id)} is not a UUID (8-4-4-4-12 hex)` });
  }

  const request: UpdateFindingRequest = {};
  for (const field of ['finding_status', 'finding_type', 'severity'] as const) {
    const raw = input[field];
    if (raw === undefined) continue;
    const value = raw.trim();
    const allowed: readonly string[] = TRIAGE_ENUMS[field];
    if (allowed.includes(value)) {
      (request as Record<string, string>)[field] = value;
    } else {
      problems.push({
        field,
        message: `${JSON.stringify(raw)} is not allowed; use one of: ${allowed.join(', ')}`,
      });
    }
  }
  if (input.notes !== undefined) request.notes = input.notes;
  const accepted = validateAcceptance(input.finding_status, input, options.owner);
  problems.push(...accepted.problems);

  if (Object.keys(request).length === 0 && !problems.some((p) => p.field !== 'finding_id')) {
    problems.push({
      field: 'change',
      message: 'nothing to change',
    });
  }
  if (problems.length > 0) return { ok: false, problems };
  return {
    ok: true,
    change: {
      findingId: id.toLowerCase(),
      request,
      ...(accepted.acceptance === undefined ? {} : { acceptance: accepted.acceptance }),
    },
  };
}

/** The request's fields in a fixed order, so identical changes serialize to identical bytes. */
export function canonicalRequest(request: UpdateFindingRequest): UpdateFindingRequest {
  const entries = TRIAGE_FIELDS.flatMap((field) =>
    request[field] === undefined ? [] : [[field, request[field]]],
  );
  return Object.fromEntries(entries) as UpdateFindingRequest;
}
