/**
 * The gated baseline: which snapshot the next run's diff and gates compare with.
 *
 * It is the snapshot of the last run whose every step succeeded on a complete snapshot (when: see
 * run-baseline.ts) — not simply the newest snapshot in the database. A run stopped or failed after
 * its load leaves a snapshot in the database that no report or gate fully showed; if the next run
 * compared with it, a finding that appeared in it would be "persisting" instead of "new" and
 * `new_critical_findings <= 0` would never trip on it.
 *
 * The record lives next to the database (`<database>.baseline.json`), one entry per org/workspace,
 * because the baseline names a snapshot *in that database*; the run lock on the database serializes
 * every read and write of it. No record (first run, or a database from before the record existed)
 * means no baseline: every open finding counts as new, as on a first run — the strict side.
 */
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { writeFileAtomic } from '../snapshot/write-atomic.js';

export const GATED_BASELINE_FORMAT = 'airt-gated-baseline/1';

const EntrySchema = z.object({
  snapshot_id: z.string().min(1),
  /** When the gates of that run were evaluated (ISO 8601). */
  gated_at: z.string(),
  /**
   * The snapshot that run's diff and gates compared with (null: none), so `airt-report gates` on it
   * compares with the same one. Absent in records written before it was kept.
   */
  previous_snapshot_id: z.string().min(1).nullable().optional(),
});

const FileSchema = z.object({
  format: z.literal(GATED_BASELINE_FORMAT),
  /** Keyed by `<org>/<workspace>`. */
  workspaces: z.record(z.string(), EntrySchema),
});

export type GatedBaseline = z.infer<typeof EntrySchema>;
type BaselineFile = z.infer<typeof FileSchema>;

/** Where the baseline record of a database is kept. */
export function gatedBaselinePath(database: string): string {
  return `${database}.baseline.json`;
}

function workspaceKey(org: string, workspace: string): string {
  return `${org}/${workspace}`;
}

/**
 * The recorded baseline of a workspace, or null when there is none. A record that cannot be read
 * or parsed is an error: silently treating it as "none" would hide a broken setup, and treating it
 * as anything else would guess.
 */
export async function readGatedBaseline(
  database: string,
  org: string,
  workspace: string,
): Promise<GatedBaseline | null> {
  const file = await readBaselineFile(database);
  return file?.workspaces[workspaceKey(org, workspace)] ?? null;
}

/**
 * Whether a recorded baseline snapshot belongs to the run's org and workspace. The record is keyed by
 * workspace, but a copied or edited record can name another workspace's snapshot; comparing with it
 * would match projects by key across workspaces, so such a baseline is not used.
 */
export function baselineInScope(
  snapshot: { org: string; workspace: string },
  org: string,
  workspace: string,
): boolean {
  return snapshot.org === org && snapshot.workspace === workspace;
}

/** Records `snapshotId` as the workspace's baseline; other workspaces' entries are kept. */
export async function recordGatedBaseline(
  database: string,
  org: string,
  workspace: string,
  baseline: GatedBaseline,
): Promise<void> {
  const current = await readBaselineFile(database);
  const workspaces = { ...current?.workspaces, [workspaceKey(org, workspace)]: baseline };
  // Sorted keys: the same records give the same bytes.
  const sorted = Object.fromEntries(Object.entries(workspaces).sort(([a], [b]) => (a < b ? -1 : 1)));
  const next: BaselineFile = { format: GATED_BASELINE_FORMAT, workspaces: sorted };
  await writeFileAtomic(gatedBaselinePath(database), `${JSON.stringify(next, null, 2)}\n`);
}

async function readBaselineFile(database: string): Promise<BaselineFile | null> {
  const file = gatedBaselinePath(database);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new Error(`${file} is not valid JSON (${(error as Error).message}); ${REPAIR_HINT}`);
  }
  const parsed = FileSchema.safeParse(json);
  if (!parsed.success) throw new Error(`${file} is not an ${GATED_BASELINE_FORMAT} record; ${REPAIR_HINT}`);
  return parsed.data;
}

const REPAIR_HINT =
  'delete it to start over with no baseline (the next run counts every open finding as new)';
