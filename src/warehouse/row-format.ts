/**
 * The version of how rows are built from a snapshot's files, within one airt-report version: part of
 * every key that lets a load reuse what an earlier load built from the same bytes (a summary's memo,
 * summary-memo.ts; a whole snapshot's rows, snapshot-inputs.ts). Bump it whenever the same files give
 * other rows, so that no load maps rows an older build made.
 *
 * 2: an assessment's top findings carry its assessment_id; one-row row sets keep their position in
 *    the mapping (schema 13).
 */
export const ROW_FORMAT = 2;
