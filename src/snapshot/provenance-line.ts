/**
 * The provenance line of the Markdown files made from one snapshot (gate report, diff): which
 * snapshot, by id and manifest root hash. One fixed shape, printed before any service data, so
 * `airt-report verify BUNDLE.zip` can read it back and compare it with the bundled manifest.
 */
import { markdownCode } from '../text-safety.js';

/** `Provenance: snapshot `ID`, root hash (sha256) `HEX`.` — or `root hash unknown` when there is none. */
export function provenanceLine(snapshotId: string, rootSha256: string | null): string {
  const root = rootSha256 === null ? 'root hash unknown' : `root hash (sha256) ${markdownCode(rootSha256)}`;
  return `Provenance: snapshot ${markdownCode(snapshotId)}, ${root}.`;
}

/** The first provenance line of a Markdown file, or null when it has none. */
export function findProvenanceLine(markdown: string): string | null {
  return markdown.split('\n').find((line) => line.startsWith('Provenance: snapshot ')) ?? null;
}

/** The lead words of the warning every output made from a forced (unverified) load carries. */
export const UNVERIFIED_LEAD = 'WARNING: UNVERIFIED DATA.';

/**
 * The Markdown warning line of a file made from snapshots loaded although they failed verification
 * (forced): `> **WARNING: UNVERIFIED DATA.** `ID` failed verification … <what>`. A fixed shape data
 * text cannot start (escaped data never starts a line with `>`), found by verify BUNDLE.zip.
 */
export function unverifiedMarkdownLine(snapshotIds: readonly string[], what: string): string {
  return (
    `> **${UNVERIFIED_LEAD}** ${snapshotIds.map(markdownCode).join(', ')} failed verification and ` +
    `${snapshotIds.length === 1 ? 'was' : 'were'} loaded anyway (forced): ${what}`
  );
}

/** Files named in a warning about a forced load; the rest are counted ("… and 3 more"). */
const MISMATCHED_FILES_SHOWN = 5;

/**
 * What failed in a forced load, naming its files: `2 files did not match its manifest (a, b)`, or
 * `its files did not match its manifest` when none was recorded. `data` escapes a file name (it comes
 * from the snapshot), `own` our words, for the output's format. Shared by the reports' banner and the
 * OSCAL remarks, so both name the same files the same way.
 */
export function mismatchedFilesClause(
  files: readonly string[],
  data: (raw: string) => string,
  own: (text: string) => string,
): string {
  if (files.length === 0) return own('its files did not match its manifest');
  const shown = files.slice(0, MISMATCHED_FILES_SHOWN).map(data);
  if (files.length > MISMATCHED_FILES_SHOWN)
    shown.push(own(`… and ${files.length - MISMATCHED_FILES_SHOWN} more`));
  const noun = files.length === 1 ? 'file' : 'files';
  return `${own(`${files.length} ${noun} did not match its manifest (`)}${shown.join(own(', '))}${own(')')}`;
}
