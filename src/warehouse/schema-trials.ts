/**
 * Trials and what hangs off them.

 * Storage (schema version 7): trial rows are stored once per distinct trial file content, keyed by the
 * file's content key (its sha256 from the verified manifest, see trial-content.ts), in trial_content;
 * snapshot_trial_files maps each snapshot's trial files to their content, and trial_content_files holds
 * one row per stored content with its counts. `trials` is a view joining the two, with the columns of
 * TRIALS below: a night that changed nothing adds one small mapping row per file, no trial row.
 * A trial's tool calls and message parts are kept as lists in its row
 * (tool_call_list, candidate_part_list, response_part_list) and read through the views
 * trial_tool_calls and message_parts (views.ts), one row per call or part, keyed by the trial: the
 * loader then writes each trial once, in the same statement that parses its file, instead of a stage
 * and two more tables (the million-trial snapshot: 12.9 s → 8.4 s). The views keep the contract of
 * one normalized row per element.
 */
import {
  api,
  ASSESSMENT,
  ctx,
  projectTable,
  SNAPSHOT,
  type ColumnType,
  type TableDef,
} from './schema-core.js';

/** One row per ToolCallEvidence of a trial (a view over trials.tool_call_list). */
export const TRIAL_TOOL_CALLS: TableDef = projectTable(
  'trial_tool_calls',
  'One row per ToolCallEvidence of a trial.',
  [
    ASSESSMENT,
    ctx('trial_ordinal', 'BIGINT'),
    ctx('call_ordinal', 'BIGINT'),
    api('agent', 'VARCHAR'),
    api('arguments', 'VARCHAR'),
    api('name', 'VARCHAR'),
    api('result', 'VARCHAR'),
  ],
);

/**
 * One row per MessagePart of a trial candidate (role candidate) or response (role response): a view
 * over trials.candidate_part_list / response_part_list plus the one plain text part a trial implies
 * (candidate_part_implied, response_part_implied).
 */
export const MESSAGE_PARTS: TableDef = projectTable(
  'message_parts',
  'One row per MessagePart of a trial candidate (role candidate) or response (role response).',
  [
    ASSESSMENT,
    ctx('trial_ordinal', 'BIGINT'),
    ctx('role', 'VARCHAR'),
    ctx('part_ordinal', 'BIGINT'),
    api('kind', 'VARCHAR'),
    api('caption', 'VARCHAR'),
    api('text', 'VARCHAR'),
    api('transform', 'VARCHAR'),
    api('variant', 'VARCHAR'),
    ctx('source_ref', 'VARCHAR'),
    ctx('source_artifact_oid', 'VARCHAR'),
    ctx('source_byte_size', 'BIGINT'),
    ctx('source_detail', 'VARCHAR'),
    ctx('source_file_id', 'VARCHAR'),
    ctx('source_filename', 'VARCHAR'),
    ctx('source_media_type', 'VARCHAR'),
    ctx('source_url', 'VARCHAR'),
  ],
);

/**
 * A stored tool call: the fields of a ToolCallEvidence, and `extra` (keys the spec does not know and
 * values that did not fit, kept by the strict path). The fast paths store the list exactly as DuckDB
 * reads it, with no per-element work: a vouched file has no unknown key, so its `extra` is NULL.
 */
const TOOL_CALL_ELEMENT =
  'STRUCT(agent VARCHAR, arguments VARCHAR, "name" VARCHAR, "result" VARCHAR, extra JSON)';
/**
 * A stored MessagePart, likewise; its source stays the JSON object (nearly always absent), read into
 * the source_* columns of message_parts by the view.
 */
const MESSAGE_PART_ELEMENT =
  'STRUCT(kind VARCHAR, caption VARCHAR, "source" JSON, "text" VARCHAR, "transform" VARCHAR, variant VARCHAR, extra JSON)';

/** The keys of a part's source, read into message_parts.source_<key>. */
export const SOURCE_KEYS = [
  'ref',
  'artifact_oid',
  'byte_size',
  'detail',
  'file_id',
  'filename',
  'media_type',
  'url',
] as const;
export const sourceKeyType = (key: (typeof SOURCE_KEYS)[number]): ColumnType =>
  key === 'byte_size' ? 'BIGINT' : 'VARCHAR';

export const TRIALS: TableDef = projectTable('trials', 'One row per trial of trials/<assessment>.json.', [
  ASSESSMENT,
  /** Position in the file (0-based): the trial's identity within its assessment. */
  ctx('trial_ordinal', 'BIGINT'),
  api('attack_name', 'VARCHAR'),
  api('candidate', 'VARCHAR'),
  api('execution_time_s', 'DOUBLE'),
  api('goal', 'VARCHAR'),
  api('goal_category', 'VARCHAR'),
  api('is_jailbreak', 'BOOLEAN'),
  api('judge_reasoning', 'VARCHAR'),
  api('response', 'VARCHAR'),
  api('score', 'DOUBLE'),
  api('span_id', 'VARCHAR'),
  api('target_model', 'VARCHAR'),
  api('timestamp', 'VARCHAR'),
  api('trace_id', 'VARCHAR'),
  api('transformed_prompt', 'VARCHAR'),
  api('transforms', 'VARCHAR[]'),
  api('trial_index', 'BIGINT'),
  api('trial_status', 'VARCHAR'),
  ctx('tool_call_count', 'BIGINT'),
  ctx('candidate_part_count', 'BIGINT'),
  ctx('response_part_count', 'BIGINT'),
  /**
   * TRUE when candidate_parts was exactly one plain text part holding the candidate string (nearly
   * every trial): the list is not stored; message_parts derives that part from `candidate`.
   */
  ctx('candidate_part_implied', 'BOOLEAN'),
  /** The same for response_parts and `response`. */
  ctx('response_part_implied', 'BOOLEAN'),
  /** The tool calls (NULL when none); query trial_tool_calls. */
  ctx('tool_call_list', 'TOOL_CALL[]'),
  /** The candidate's parts unless implied (NULL then, or when none); query message_parts. */
  ctx('candidate_part_list', 'MESSAGE_PART[]'),
  /** The response's parts unless implied; query message_parts. */
  ctx('response_part_list', 'MESSAGE_PART[]'),
]);

/** The columns of a trial row that come from the snapshot file's context, not from its content. */
export const TRIAL_CONTEXT_COLUMNS = ['snapshot_id', 'project_id', 'project_key', 'assessment_id'];

/** Which stored content a file's trial rows are: see trial-content.ts for how the key is made. */
const CONTENT_KEY = ctx('content_key', 'VARCHAR');

/** The trial rows of every distinct trial file content, once: what `trials` reads through its view. */
export const TRIAL_CONTENT: TableDef = {
  name: 'trial_content',
  doc: 'Storage: one row per trial of each distinct trial file content (query trials).',
  scope: 'content',
  columns: [CONTENT_KEY, ...TRIALS.columns.filter((c) => !TRIAL_CONTEXT_COLUMNS.includes(c.name))],
};

/** One row per distinct trial file content stored, with what a load needs without reading its rows. */
export const TRIAL_CONTENT_FILES: TableDef = {
  name: 'trial_content_files',
  doc: 'Storage: one row per distinct trial file content in trial_content, with its counts.',
  scope: 'content',
  columns: [
    CONTENT_KEY,
    ctx('file_sha256', 'VARCHAR'),
    /** vouched (fast path), strict (every value type-checked) or unverified (a forced load's file). */
    ctx('read_path', 'VARCHAR'),
    ctx('trials', 'BIGINT'),
    ctx('trials_with_extra', 'BIGINT'),
    ctx('tool_calls', 'BIGINT'),
    ctx('message_parts', 'BIGINT'),
    /** Values the file held that were stored altered (lone surrogates): replayed into altered_values. */
    ctx('altered', 'JSON'),
  ],
};

/** Which trial files each snapshot holds, and their content: the `trials` view joins this to content. */
export const SNAPSHOT_TRIAL_FILES: TableDef = {
  name: 'snapshot_trial_files',
  doc: "One row per trial file of a snapshot: its assessment's project, its path and its content.",
  scope: 'snapshot',
  columns: [
    SNAPSHOT,
    ctx('project_id', 'VARCHAR'),
    ctx('project_key', 'VARCHAR'),
    ASSESSMENT,
    ctx('path', 'VARCHAR'),
    CONTENT_KEY,
  ],
};

/** A column type as DuckDB DDL. */
export function sqlType(type: ColumnType): string {
  switch (type) {
    case 'TOOL_CALL[]':
      return `${TOOL_CALL_ELEMENT}[]`;
    case 'MESSAGE_PART[]':
      return `${MESSAGE_PART_ELEMENT}[]`;
    default:
      return type;
  }
}
