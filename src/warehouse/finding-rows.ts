/**
 * FindingDetail bodies (a snapshot's findings/ directory, or the `finding` of an applied triage journal
 * line) → a findings row carrying the triage state, and review_events rows keyed by a content hash so
 * the same event seen twice is stored once.
 */
import { createHash } from 'node:crypto';
import type { CellValue } from './db.js';
import { isPlainObject, type RowCollector } from './row-builder.js';
import { FINDINGS, REVIEW_EVENTS } from './schema.js';
import { FINDING_DETAIL_DEFAULTS } from './spec-defaults.js';

/** FindingDetail's best-trial fields share columns with the top findings' fields. */
const DETAIL_RENAMES = {
  best_score: 'score',
  best_candidate: 'candidate',
  best_response: 'response',
  best_transformed_prompt: 'transformed_prompt',
  best_judge_reasoning: 'judge_reasoning',
  best_candidate_parts: 'candidate_parts',
  best_response_parts: 'response_parts',
  best_modality_scores: 'modality_scores',
} as const;

export interface FindingDetailContext {
  snapshotId: string | null;
  origin: 'finding_detail' | 'journal';
  file: string;
  /** Project of the attack run, when the loader knows it. */
  projectId: string | null;
  projectKey: string | null;
  journalTime?: string | null;
  journalSource?: string | null;
  ordinal: number;
}

/** Stable JSON (sorted keys) for hashing. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (isPlainObject(value)) {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

function reviewEventKey(findingId: string | null, event: unknown): string {
  return createHash('sha256')
    .update(`${findingId ?? ''}\n${canonical(event)}`)
    .digest('hex');
}

/**
 * Adds the finding row and its review events. `seenEvents` (event keys already stored for this
 * snapshot or journal) makes repeated events a no-op. Returns the finding id.
 */
export function collectFindingDetail(
  body: unknown,
  context: FindingDetailContext,
  seenEvents: Set<string>,
  sink: RowCollector,
): string | null {
  const findingId = isPlainObject(body) && typeof body.id === 'string' ? body.id : null;
  const events = isPlainObject(body) && Array.isArray(body.review_events) ? body.review_events : [];
  const row: Record<string, CellValue> = {
    snapshot_id: context.snapshotId,
    project_id: context.projectId,
    project_key: context.projectKey,
    origin: context.origin,
    attack_run_id: findingId,
    review_event_count: events.length,
    source_file: context.file,
    journal_time: context.journalTime ?? null,
    journal_source: context.journalSource ?? null,
    ordinal: context.ordinal,
  };
  const reviewEventsOk =
    !isPlainObject(body) || body.review_events === undefined || Array.isArray(body.review_events);
  sink.add(FINDINGS, body, {
    context: row,
    consumed: findingId === null ? [] : ['id', ...(reviewEventsOk ? ['review_events'] : [])],
    rename: DETAIL_RENAMES,
    defaults: FINDING_DETAIL_DEFAULTS,
    file: context.file,
    path: '$',
  });
  events.forEach((event: unknown, i) => {
    const key = reviewEventKey(findingId, event);
    if (seenEvents.has(key)) return;
    seenEvents.add(key);
    sink.add(REVIEW_EVENTS, event, {
      context: {
        snapshot_id: context.snapshotId,
        origin: context.origin,
        finding_id: findingId,
        event_key: key,
        ordinal: i,
      },
      file: context.file,
      path: `$.review_events[${i}]`,
    });
  });
  return findingId;
}
