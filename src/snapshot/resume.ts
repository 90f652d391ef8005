/**
 * `--resume DIR`: turns an unfinished snapshot back into a working directory the snapshot pipeline
 * can continue. Accepts the `<id>.partial` directory an interrupted or killed run left, or a finished
 * snapshot whose status is `partial` (some requests failed). The pipeline then runs as usual and
 * reuses every file whose hash the journal vouches for, so only missing or failed requests are sent.
 *
 * For a finished partial snapshot the manifest's file list becomes the journal, then the manifest is
 * removed and the directory renamed back to `<id>.partial`: at no point does a directory look finished
 * while it is being changed.
 *
 * A `.partial` that already holds a manifest was stopped while being published (see publish.ts). When
 * its files match that manifest, nothing is fetched: the caller only finishes publishing it. When they
 * do not, the manifest is dropped and the journal resumed as usual.
 */
import { rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { neutralizeControls } from '../api/error-body.js';
import { normalizeBaseUrl } from '../api/connection-settings.js';
import { InvalidOptionError } from '../errors.js';
import { isInvalidJson } from './check-body.js';
import {
  JOURNAL_FILE,
  JournalMissingError,
  journalHeader,
  readJournal,
  startJournal,
  type JournalFile,
  type JournalHeader,
} from './journal.js';
import { MANIFEST_FILE, type Manifest } from './manifest.js';
import { PARTIAL_SUFFIX, pathExists } from './snapshot-id.js';
import { readManifest, verifySnapshot } from './verify.js';
import { removeStaleTempFiles, syncDirectory } from './write-atomic.js';

export interface ResumePoint {
  /** The `<id>.partial` working directory. */
  partialDir: string;
  snapshotId: string;
  header: JournalHeader;
  /** Files the earlier run finished, by path; each is reused only if its hash still matches. */
  finished: Map<string, JournalFile>;
  /**
   * Set when the `.partial` already holds a manifest its files match (the run was stopped while
   * publishing): only `finishPublishing` is left to do, nothing is fetched.
   */
  readyManifest?: Manifest;
}

/**
 * The manifest of a `.partial` stopped while publishing, when every file matches it (the journal,
 * if not yet removed, is the only file it does not list); undefined when there is none or it does not
 * match.
 */
async function verifiedManifest(partialDir: string): Promise<Manifest | undefined> {
  const result = await verifySnapshot(partialDir).catch(() => undefined);
  if (!result) return undefined;
  const onlyJournalExtra = result.extra.every((file) => file === JOURNAL_FILE);
  // The id decides the final name, so it must be the one this directory was reserved under.
  const ownId = path.basename(partialDir) === result.manifest.snapshot_id + PARTIAL_SUFFIX;
  const matches =
    ownId &&
    onlyJournalExtra &&
    result.missing.length === 0 &&
    result.modified.length === 0 &&
    result.rootHash.ok;
  return matches ? result.manifest : undefined;
}

/** The run a caller asks to continue, as its options name it. */
export interface ResumeWanted {
  /** The directory passed as `resume`, for messages. */
  dir: string;
  org: string;
  workspace: string;
  baseUrl: string;
}

/** A base URL as requests are built from it, or the recorded text as it is when it is not one. */
function comparableBaseUrl(baseUrl: string): string {
  try {
    return normalizeBaseUrl(baseUrl);
  } catch {
    return baseUrl;
  }
}

/**
 * Refuses to continue a recorded run that is not the one asked for: another org or workspace, or
 * another service. Base URLs are compared as requests are built from them (`https://host/` and
 * `https://host` are one service): a snapshot started against one service and finished against
 * another would mix both and name only the second. Throws an InvalidOptionError (option `resume`).
 */
export function checkSameRun(header: JournalHeader, wanted: ResumeWanted): void {
  if (header.org !== wanted.org || header.workspace !== wanted.workspace) {
    throw new InvalidOptionError(
      'resume',
      (name) =>
        `${name('resume')} ${wanted.dir} belongs to ${header.org}/${header.workspace}, ` +
        `not ${wanted.org}/${wanted.workspace}.`,
    );
  }
  const recorded = comparableBaseUrl(header.base_url);
  const asked = comparableBaseUrl(wanted.baseUrl);
  if (recorded !== asked) {
    const from = neutralizeControls(recorded);
    throw new InvalidOptionError(
      'resume',
      (name) =>
        `${name('resume')} ${wanted.dir} was fetched from ${from}, not from ${neutralizeControls(asked)} ` +
        `(${name('baseUrl')}); one snapshot holds the data of one service. Resume it from that service ` +
        `(set ${name('baseUrl')} to ${from}), or start a new snapshot.`,
    );
  }
}

function journalFromManifest(manifest: Manifest): { header: JournalHeader; files: JournalFile[] } {
  const header = journalHeader({
    snapshot_id: manifest.snapshot_id,
    org: manifest.org,
    workspace: manifest.workspace,
    base_url: manifest.base_url,
    started_at: manifest.started_at,
    options: manifest.options,
  });
  // A body that is not JSON (listed by earlier versions, with an invalid_json issue) was no answer:
  // left out here, so the resumed run requests it again.
  const files = manifest.files
    .filter((entry) => entry.request === null || !isInvalidJson(entry.issues))
    .map((entry) => {
      const {
        issues: _issues,
        issues_total: _total,
        unknown_keys: _keys,
        records: _records,
        ...file
      } = entry;
      return file;
    });
  return { header, files };
}

/**
 * Prepares `dir` for resuming; throws an InvalidOptionError (option `resume`) saying why when it cannot be resumed. `accept` sees
 * the recorded run (org, workspace, options) before anything on disk is changed, and may throw.
 */
export async function prepareResume(
  dir: string,
  accept: (header: JournalHeader) => void = () => undefined,
): Promise<ResumePoint> {
  let root = path.resolve(dir);
  const stats = await stat(root).catch(() => undefined);
  if (!stats?.isDirectory()) {
    throw new InvalidOptionError(
      'resume',
      (name) =>
        `${name('resume')} ${dir}: no such directory. Pass the <id>.partial directory of the unfinished snapshot.`,
    );
  }
  const hasManifest = await pathExists(path.join(root, MANIFEST_FILE));
  if (hasManifest && !root.endsWith(PARTIAL_SUFFIX)) {
    const manifest = await readManifest(root);
    if (manifest.status === 'complete') {
      throw new InvalidOptionError(
        'resume',
        (name) => `${name('resume')} ${dir}: this snapshot is complete; there is nothing to resume.`,
      );
    }
    const { header, files } = journalFromManifest(manifest);
    accept(header);
    const writer = await startJournal(root, header, files);
    await writer.close();
    await rm(path.join(root, MANIFEST_FILE));
    await syncDirectory(root);
  }
  if (hasManifest && root.endsWith(PARTIAL_SUFFIX)) {
    const manifest = await verifiedManifest(root);
    if (manifest) {
      const { header } = journalFromManifest(manifest);
      accept(header);
      return {
        partialDir: root,
        snapshotId: manifest.snapshot_id,
        header,
        finished: new Map(),
        readyManifest: manifest,
      };
    }
  }
  let journal: Awaited<ReturnType<typeof readJournal>>;
  try {
    journal = await readJournal(root);
  } catch (error) {
    if (error instanceof JournalMissingError) {
      throw new InvalidOptionError(
        'resume',
        (name) =>
          `${name('resume')} ${dir}: not a resumable snapshot (${error.message}). Start a new snapshot instead.`,
      );
    }
    throw error;
  }
  accept(journal.header);
  // A manifest that does not match the files is dropped; the journal says what to fetch again.
  if (hasManifest && root.endsWith(PARTIAL_SUFFIX)) await rm(path.join(root, MANIFEST_FILE));
  if (!root.endsWith(PARTIAL_SUFFIX)) {
    const partialDir = root + PARTIAL_SUFFIX;
    if (await pathExists(partialDir)) {
      throw new InvalidOptionError(
        'resume',
        (name) => `${name('resume')} ${dir}: ${partialDir} exists too; resume that one or remove it.`,
      );
    }
    await rename(root, partialDir);
    await syncDirectory(path.dirname(root));
    root = partialDir;
  }
  await removeStaleTempFiles(root);
  return {
    partialDir: root,
    snapshotId: journal.header.snapshot_id,
    header: journal.header,
    finished: journal.files,
  };
}
