/**
 * Evaluation list pages → evaluation_jobs (item counts and analytics as columns) and
 * evaluation_skipped_members. A job listed on two pages (the list shifted while it was paged) is loaded
 * once, from its first page, and the repeat is reported.
 */
import type { CellValue } from './db.js';
import { fitValue, isPlainObject, type RowCollector } from './row-builder.js';
import { ITEM_COUNT_DEFAULTS } from './spec-defaults.js';
import { ANALYTICS_FIELDS, EVALUATION_JOBS, EVALUATION_SKIPPED_MEMBERS, ITEM_STATES } from './schema.js';

export interface EvaluationPageContext {
  snapshotId: string;
  file: string;
  page: number | null;
  /** project_id → project_key of the snapshot's projects. */
  projectKeys: ReadonlyMap<string, string | null>;
  /** Job ids already loaded from earlier pages of this snapshot. */
  seen: Set<string>;
}

/** Splits a sub-object into typed columns (prefix + field) and the keys it does not know. */
function spread(
  value: unknown,
  fields: readonly (readonly [string, Parameters<typeof fitValue>[0]])[],
  prefix: string,
  where: string,
  file: string,
  sink: RowCollector,
  defaults: Readonly<Record<string, unknown>> = {},
): { columns: Record<string, CellValue>; extra: string | null } {
  const columns: Record<string, CellValue> = {};
  const extra: Record<string, unknown> = {};
  if (!isPlainObject(value))
    return {
      columns,
      extra: value === undefined || value === null ? null : JSON.stringify({ _value: value }),
    };
  const known = new Set(fields.map(([f]) => f));
  for (const [field, type] of fields) {
    // Absent means the spec's default when it states one (spec-defaults.ts), else unknown.
    const given =
      value[field] === undefined && Object.hasOwn(defaults, field) ? defaults[field] : value[field];
    const fitted = fitValue(type, given);
    if (fitted === undefined) {
      extra[field] = value[field];
      sink.warn('type_mismatch', `${where}.${field} is not ${type}; kept in extra`, file, {
        value: value[field],
      });
    }
    columns[`${prefix}${field}`] = fitted ?? null;
  }
  for (const [key, v] of Object.entries(value)) if (!known.has(key)) extra[key] = v;
  return { columns, extra: Object.keys(extra).length > 0 ? JSON.stringify(extra) : null };
}

const ITEM_FIELDS = ITEM_STATES.map((state) => [state, 'BIGINT'] as const);

/**
 * How a page's job is collected: `collect` builds its rows; a caller may map them from a memo instead
 * (evaluation-memo.ts). Repeats of an earlier job are skipped before this is asked.
 */
export type EachJob = (job: unknown, index: number, collect: () => void) => void;

/** Returns the number of items on the page (the manifest's record count) and how many were repeats. */
export function collectEvaluationPage(
  body: unknown,
  context: EvaluationPageContext,
  sink: RowCollector,
  eachJob: EachJob = (_job, _index, collect) => collect(),
): { items: number; repeats: number } {
  const { file } = context;
  if (!isPlainObject(body) || !Array.isArray(body.items)) {
    sink.warn(
      'type_mismatch',
      `${file} is not an EvaluationJobList with an items array; not loaded`,
      file,
      null,
    );
    return { items: 0, repeats: 0 };
  }
  let repeats = 0;
  body.items.forEach((job: unknown, i) => {
    const where = `$.items[${i}]`;
    const id = isPlainObject(job) && typeof job.id === 'string' ? job.id : null;
    if (id !== null && context.seen.has(id)) {
      repeats++;
      sink.warn(
        'duplicate_evaluation_job',
        `${file} ${where}: job ${id} already loaded from an earlier page; skipped`,
        file,
        { id },
      );
      return;
    }
    if (id !== null) context.seen.add(id);
    eachJob(job, i, () => collectJob(job, i, context, sink));
  });
  return { items: body.items.length, repeats };
}

/** One job's rows: evaluation_jobs and its skipped members. */
function collectJob(job: unknown, i: number, context: EvaluationPageContext, sink: RowCollector): void {
  const { file, snapshotId } = context;
  const where = `$.items[${i}]`;
  const id = isPlainObject(job) && typeof job.id === 'string' ? job.id : null;
  const body = isPlainObject(job) ? job : {};
  const projectId = typeof body.project_id === 'string' ? body.project_id : null;
  // item_counts present: a state it omits has 0 items. item_counts absent (the spec requires it):
  // every count is unknown.
  const items = spread(
    body.item_counts,
    ITEM_FIELDS,
    'items_',
    `${where}.item_counts`,
    file,
    sink,
    ITEM_COUNT_DEFAULTS,
  );
  const analytics = spread(body.analytics, ANALYTICS_FIELDS, 'analytics_', `${where}.analytics`, file, sink);
  const taskSet = isPlainObject(body.task_set_ref) ? body.task_set_ref : null;
  const skipped = Array.isArray(body.skipped_members) ? body.skipped_members : null;
  const row: Record<string, CellValue> = {
    snapshot_id: snapshotId,
    project_id: projectId,
    project_key: projectId === null ? null : (context.projectKeys.get(projectId) ?? null),
    ...items.columns,
    item_counts_extra: items.extra,
    has_analytics: isPlainObject(body.analytics),
    ...analytics.columns,
    analytics_extra: analytics.extra,
    skipped_member_count: skipped === null ? null : skipped.length,
    task_set_id: typeof taskSet?.id === 'string' ? taskSet.id : null,
    task_set_name: typeof taskSet?.name === 'string' ? taskSet.name : null,
    task_set_org_key: typeof taskSet?.org_key === 'string' ? taskSet.org_key : null,
    task_set_ref: body.task_set_ref === undefined ? null : JSON.stringify(body.task_set_ref),
    page: context.page,
    page_file: file,
    ordinal: i,
  };
  sink.add(EVALUATION_JOBS, job, {
    context: row,
    consumed: ['project_id', 'item_counts', 'analytics', 'skipped_members', 'task_set_ref'],
    file,
    path: where,
  });
  if (body.skipped_members !== undefined && body.skipped_members !== null && skipped === null) {
    sink.warn('type_mismatch', `${where}.skipped_members is not an array; not loaded`, file, {
      value: body.skipped_members,
    });
  }
  (skipped ?? []).forEach((member: unknown, m) =>
    sink.add(EVALUATION_SKIPPED_MEMBERS, member, {
      context: {
        snapshot_id: snapshotId,
        project_id: projectId,
        project_key: row.project_key ?? null,
        evaluation_id: id,
        ordinal: m,
      },
      file,
      path: `${where}.skipped_members[${m}]`,
    }),
  );
}
