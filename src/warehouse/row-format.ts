/**
 * The version of how rows are built from a snapshot's files, within one airt-report version: part of
 * every key that lets a load reuse what an earlier load built from the same bytes (a summary's memo,
 * summary-memo.ts; a whole snapshot's rows, snapshot-inputs.ts). Bump it whenever the same files give
 * other rows, so that no load maps rows an older build made.
 *
 * 2: an assessment's top findings carry its assessment_id; one-row row sets keep their position in
 *    the mapping (schema 13).
 * 3: a project a manifest lists twice (one id under two keys) gives its rows once, not twice: a
 *    snapshot loaded before must not lend its doubled rows to a later one with the same inputs.
 */
export const ROW_FORMAT = 3;
