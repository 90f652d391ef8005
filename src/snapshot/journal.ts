/**
 * The progress journal of an unfinished snapshot: `.journal.jsonl` inside `<id>.partial/`, one JSON
 * line per stored file (appended after the file's rename), after a header line with the run's
 * identity and options. `--resume` reads it to know which files are finished and what hash each must
 * have; it is deleted before the directory is published, so finished snapshots never contain it.
 *
 * Lines are not fsynced one by one: losing the tail in a crash only means those files are fetched
 * again, because a file is reused only when a journal line vouches for its hash.
 */
import { open, readFile, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { ManifestFileSchema, ManifestSchema } from './manifest.js';
import { writeFileAtomic } from './write-atomic.js';

export const JOURNAL_FILE = '.journal.jsonl';
const JOURNAL_FORMAT = 'airt-snapshot-journal/1';
/** How long journal lines are collected before they are written together. */
const JOURNAL_BATCH_MS = 25;

export const JournalHeaderSchema = z.object({
  type: z.literal('header'),
  journal: z.literal(JOURNAL_FORMAT),
  snapshot_id: z.string(),
  org: z.string(),
  workspace: z.string(),
  base_url: z.string(),
  started_at: z.string(),
  options: ManifestSchema.shape.options,
});
export type JournalHeader = z.infer<typeof JournalHeaderSchema>;

/** A finished file as the journal remembers it; validation results are recomputed on resume. */
export const JournalFileSchema = ManifestFileSchema.omit({
  issues: true,
  issues_total: true,
  unknown_keys: true,
  records: true,
});
export type JournalFile = z.infer<typeof JournalFileSchema>;

const JournalLineSchema = z.object({ type: z.literal('file'), file: JournalFileSchema });

export interface JournalWriter {
  append(file: JournalFile): Promise<void>;
  /** Writes the lines collected so far now instead of when their batch's time is up. */
  flush(): void;
  close(): Promise<void>;
}

/** Header for a new journal (omit `type`/`journal`; they are fixed). */
export function journalHeader(fields: Omit<JournalHeader, 'type' | 'journal'>): JournalHeader {
  return { type: 'header', journal: JOURNAL_FORMAT, ...fields };
}

/**
 * Writes `header` plus `files` as a fresh journal (atomically, so a crash leaves the old one or the
 * new one) and opens it for appending.
 */
export async function startJournal(
  dir: string,
  header: JournalHeader,
  files: readonly JournalFile[] = [],
): Promise<JournalWriter> {
  const file = path.join(dir, JOURNAL_FILE);
  const lines = [JSON.stringify(header), ...files.map((f) => JSON.stringify({ type: 'file', file: f }))];
  await writeFileAtomic(file, lines.join('\n') + '\n');
  const handle: FileHandle = await open(file, 'a');
  let queue: Promise<void> = Promise.resolve();
  let closed = false;
  // Lines are collected for a short while and written together: one write per batch instead of one
  // thread-pool round trip per file (hundreds a second), which the thread driving the requests pays
  // for. Each append resolves once its line is written; a crash loses at most the last batch, whose
  // files a resume fetches again.
  let pending: string[] = [];
  let batch: { timer: NodeJS.Timeout; start: () => void; written: Promise<void> } | undefined;
  /** Writes the collected lines (after any write under way); the batch's appends resolve with it. */
  const writeBatch = (): Promise<void> => {
    const lines = pending;
    pending = [];
    batch = undefined;
    queue = queue.then(async () => {
      if (!closed) await handle.write(lines.join(''));
    });
    return queue;
  };
  return {
    append(entry) {
      pending.push(JSON.stringify({ type: 'file', file: entry }) + '\n');
      if (batch) return batch.written;
      let start: () => void = () => undefined;
      const written = new Promise<void>((resolve) => (start = resolve)).then(writeBatch);
      batch = { timer: setTimeout(start, JOURNAL_BATCH_MS), start, written };
      return written;
    },
    flush() {
      if (!batch) return;
      clearTimeout(batch.timer);
      batch.start();
    },
    async close() {
      // A batch still collecting is written now rather than when its timer fires.
      if (batch) {
        clearTimeout(batch.timer);
        const { start, written } = batch;
        start();
        await written.catch(() => undefined);
      }
      await queue.catch(() => undefined);
      if (closed) return;
      closed = true;
      await handle.close();
    },
  };
}

/**
 * A writer for a journal still being created (`startJournal` under way), usable at once: appends wait
 * for it, and closing one that could not be created does nothing (there is nothing to close). The
 * run sends its first requests meanwhile; its first file write waits for the journal (FileStore's
 * `ready`), so a working directory never holds a data file without a journal.
 */
export function journalWhenStarted(starting: Promise<JournalWriter>): JournalWriter {
  return {
    append: async (file) => (await starting).append(file),
    flush: () =>
      void starting.then(
        (writer) => writer.flush(),
        () => undefined,
      ),
    async close() {
      const writer = await starting.catch(() => undefined);
      await writer?.close();
    },
  };
}

/** Thrown when a directory has no readable journal header. */
export class JournalMissingError extends Error {
  override readonly name = 'JournalMissingError';
}

/**
 * Reads a journal: the header and, per path, the last line about it. A torn last line (the process
 * died mid-write) is ignored, as is any line that does not parse.
 */
export async function readJournal(
  dir: string,
): Promise<{ header: JournalHeader; files: Map<string, JournalFile> }> {
  let text: string;
  try {
    text = await readFile(path.join(dir, JOURNAL_FILE), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new JournalMissingError(`${dir} has no ${JOURNAL_FILE}`);
    }
    throw error;
  }
  const lines = text.split('\n');
  let header: JournalHeader | undefined;
  const files = new Map<string, JournalFile>();
  for (const line of lines) {
    if (!line.trim()) continue;
    let data: unknown;
    try {
      data = JSON.parse(line);
    } catch {
      continue;
    }
    if (!header) {
      const parsed = JournalHeaderSchema.safeParse(data);
      if (!parsed.success) throw new JournalMissingError(`${dir}: the journal's first line is not a header`);
      header = parsed.data;
      continue;
    }
    const parsed = JournalLineSchema.safeParse(data);
    if (parsed.success) files.set(parsed.data.file.path, parsed.data.file);
  }
  if (!header) throw new JournalMissingError(`${dir}: the journal is empty`);
  return { header, files };
}
