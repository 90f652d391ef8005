/**
 * Which snapshots a rendered report's figures come from, stamped into the Markdown and HTML so that
 * `verify BUNDLE.zip` can tell a report of the bundle's snapshot from one that only mentions it: a
 * portfolio's provenance also lists the snapshots of its ASR trend, so the bundle's root hash being
 * somewhere in the text says nothing (the portfolio of the next night names it too).
 *
 *   provenance (snapshots with `figures`) ─▶ one comment line per snapshot ─▶ inserted at the top
 *
 * One invisible comment line per snapshot the figures come from:
 *
 *   <!-- airt-report figures from snapshot 20261202T0100Z-acme-main-1a2b, root sha256 <64 hex> -->
 *
 * Inserted into the rendered document, as the unverified banner is (unverified-banner.ts), so no
 * user template can leave it out or change it: at the end (in HTML before `</body>`). Data text
 * cannot produce it: escaped data never starts a Markdown line and never holds a raw `<` in either
 * format.
 */
import type { SnapshotProvenance } from './model.js';
import type { TemplateFormat } from './output-context.js';

/** A stamped line; snapshot ids are the snapshot tool's own (letters, digits, `.`, `_`, `:`, `-`). */
const STAMP_LINE = /^<!-- airt-report figures from snapshot ([\w.:-]+), root sha256 ([0-9a-f]{64}) -->$/u;
const SAFE_ID = /^[\w.:-]+$/u;

/** A snapshot the stamp names. */
export interface StampedSnapshot {
  snapshotId: string;
  rootSha256: string;
}

/**
 * The stamp lines for the snapshots the figures come from (each ending in a newline), or '' when none
 * can be named (no root hash recorded, or an id the line cannot hold).
 */
export function figuresSourceStamp(snapshots: readonly SnapshotProvenance[]): string {
  return snapshots
    .filter((s) => s.figures && s.rootSha256 !== null && SAFE_ID.test(s.snapshotId))
    .map((s) => `<!-- airt-report figures from snapshot ${s.snapshotId}, root sha256 ${s.rootSha256} -->\n`)
    .filter((line) => STAMP_LINE.test(line.trimEnd()))
    .join('');
}

/**
 * `document` with `stamp` at its end: after the last Markdown block (a blank line first, so the
 * comment is a block of its own), or before HTML's `</body>`. At the end it meets neither the title
 * nor the unverified banner, which must stay right under it.
 */
export function insertFiguresSource(document: string, stamp: string, format: TemplateFormat): string {
  if (stamp === '') return document;
  if (format === 'md') return `${document.replace(/\n*$/u, '')}\n\n${stamp}`;
  const end = document.lastIndexOf('</body>');
  if (end === -1) return `${document}${stamp}`;
  return `${document.slice(0, end)}${stamp}${document.slice(end)}`;
}

/**
 * The snapshots a rendered Markdown or HTML report stamps as its figures' source, in order; empty
 * for a report without the stamp (made by an airt-report before it was written).
 */
export function stampedFiguresSource(text: string): StampedSnapshot[] {
  const found: StampedSnapshot[] = [];
  for (const line of text.split('\n')) {
    const match = STAMP_LINE.exec(line.trimEnd());
    if (match) found.push({ snapshotId: match[1] ?? '', rootSha256: match[2] ?? '' });
  }
  return found;
}
