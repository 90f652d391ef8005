/**
 * Which snapshots a rendered report's figures come from, stamped into the Markdown and HTML so that
 * `verify BUNDLE.zip` can tell a report of the bundle's snapshot from one that only mentions it: a
 * portfolio's provenance also lists the snapshots of its ASR trend, so the bundle's root hash being
 * somewhere in the text says nothing (the portfolio of the next night names it too).
 *
 *   provenance (snapshots with `figures`) ─▶ one comment line per snapshot ─▶ appended at the end
 *
 * One invisible comment line per snapshot the figures come from:
 *
 *   <!-- airt-report figures from snapshot 20261202T0100Z-acme-main-1a2b, root sha256 <64 hex> -->
 *
 * The id is percent-encoded (a manifest may hold any id; the line must stay one comment) and a
 * snapshot without a recorded root hash says `root sha256 unknown`: every figures snapshot is
 * stamped, so a report without any stamp line was made before the stamp existed (or edited).
 *
 * Inserted into the rendered document, as the unverified banner is (unverified-banner.ts), so no
 * user template can leave it out or change it: at the end (in HTML before `</body>`). Data text
 * cannot produce it: escaped data never starts a Markdown line and never holds a raw `<` in either
 * format.
 */
import type { SnapshotProvenance } from './model.js';
import type { TemplateFormat } from './output-context.js';

const STAMP_LINE =
  /^<!-- airt-report figures from snapshot ([A-Za-z0-9._~%-]+), root sha256 ([0-9a-f]{64}|unknown) -->$/u;

/** A snapshot the stamp names; `rootSha256` null when none was recorded. */
export interface StampedSnapshot {
  snapshotId: string;
  rootSha256: string | null;
}

/** The stamp lines for the snapshots the figures come from (each ending in a newline). */
export function figuresSourceStamp(snapshots: readonly SnapshotProvenance[]): string {
  return snapshots
    .filter((s) => s.figures)
    .map((s) => {
      const root = s.rootSha256 !== null && /^[0-9a-f]{64}$/u.test(s.rootSha256) ? s.rootSha256 : 'unknown';
      return `<!-- airt-report figures from snapshot ${encodeURIComponent(s.snapshotId)}, root sha256 ${root} -->\n`;
    })
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
    if (match === null) continue;
    found.push({
      snapshotId: decodedId(match[1] ?? ''),
      rootSha256: match[2] === 'unknown' ? null : (match[2] ?? null),
    });
  }
  return found;
}

/** A stamped id as written; a malformed escape (never written by the stamp) is kept as it stands. */
function decodedId(encoded: string): string {
  try {
    return decodeURIComponent(encoded);
  } catch {
    return encoded;
  }
}
