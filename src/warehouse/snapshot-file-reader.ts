/**
 * Reading the small JSON files of a snapshot for its load (summaries, evaluation pages, findings,
 * config): their bytes, their bodies parsed with lone surrogates repaired (the originals kept:
 * altered-values.ts), a file the manifest lists but a forced load finds missing reported as a load
 * warning, and record counts checked against the manifest.
 */
import path from 'node:path';
import { readFile } from 'node:fs/promises';
import type { ManifestFile } from '../snapshot/manifest.js';
import { resolveInside } from '../snapshot/safe-path.js';
import { mayHoldLoneSurrogates, repairLoneSurrogates, type AlteredValue } from './altered-values.js';
import { parseJsonText } from './json-file.js';
import { checkRecordCount } from './load-checks.js';
import type { RowCollector } from './row-builder.js';

/** One snapshot's files, read for its load. */
export class SnapshotFileReader {
  constructor(
    private readonly dir: string,
    /** Where a missing file is reported. */
    private readonly sink: RowCollector,
    /** Where values stored altered are recorded, in load order. */
    private readonly altered: AlteredValue[],
  ) {}

  /** The parsed body of a manifest file; a missing one (forced load) is reported, and undefined. */
  async readBody(file: ManifestFile): Promise<unknown> {
    const bytes = await this.readBytes(file);
    if (bytes === undefined) this.reportMissing(file);
    return bytes === undefined ? undefined : this.parseBody(file, bytes.toString('utf8'));
  }

  /** A manifest file's bytes; undefined when it is missing (a forced load: see reportMissing). */
  async readBytes(file: ManifestFile): Promise<Buffer | undefined> {
    try {
      return await readFile(resolveInside(this.dir, file.path));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  reportMissing(file: ManifestFile): void {
    this.sink.warn(
      'file_missing',
      `${file.path} is listed in the manifest but missing; not loaded`,
      file.path,
    );
  }

  /** A file's text parsed, lone surrogates repaired (and the originals kept: altered-values.ts). */
  parseBody(file: ManifestFile, text: string): unknown {
    const body = parseJsonText(text, path.join(this.dir, file.path));
    if (!mayHoldLoneSurrogates(text)) return body;
    // Stored as UTF-8, a lone surrogate would silently become U+FFFD: do it here, and keep the original.
    return repairLoneSurrogates(body, '$', (jsonPath, original) =>
      this.altered.push({
        file: file.path,
        jsonPath,
        originalJson: JSON.stringify(original),
        table: null,
        rowKey: null,
      }),
    );
  }

  checkCount(file: ManifestFile, loaded: number, records?: { body: unknown; field: string }): void {
    checkRecordCount(this.dir, file, loaded, records);
  }
}
