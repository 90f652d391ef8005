/**
 * The warning a report carries when a snapshot it reads failed verification and was loaded anyway
 * (forced): its figures come from files that are not the ones the root hash in its provenance vouches
 * for, so the report must not read as evidence of that snapshot.
 *
 *   provenance (snapshots.verified = false) ─▶ banner (escaped for md or html) ─▶ inserted at the top
 *
 * The banner is inserted into the rendered document rather than written by the templates, so a
 * user's templates (`templatesDir`) cannot leave it out: in Markdown right after the title line, in
 * HTML right after `<body>`, before the header (the PDF prints that HTML, appendix included).
 *
 * Its first line (Markdown) or element (HTML) has a fixed shape that data text cannot produce, since
 * escaped data never starts a Markdown line nor opens an HTML tag; `reportMarkedUnverified` finds it,
 * so an audit bundle refuses such a report (pipeline/verify-bundle.ts).
 *
 * A PDF prints the HTML, banner included, but its text is compressed: it also carries the warning as
 * its document's /Subject (UNVERIFIED_PDF_SUBJECT), which pdf.ts writes whenever the HTML it prints
 * holds the banner (so no template can leave that out either) and `pdfMarkedUnverified` reads.
 */
import { mismatchedFilesClause, UNVERIFIED_LEAD } from '../snapshot/provenance-line.js';
import { decodeTextString, dictionaryEntry, infoDictionary, parseCrossReference } from './pdf-syntax.js';
import type { SnapshotProvenance } from './model.js';
import type { TemplateFormat } from './output-context.js';
import type { ViewText } from './view-text.js';

/** The banner's lead words, in both formats. */
export const UNVERIFIED_BANNER_LEAD = UNVERIFIED_LEAD;
const MARKDOWN_MARK = `> **${UNVERIFIED_BANNER_LEAD}**`;
const HTML_MARK = '<div class="callout unverified-snapshot">';

/** The report's snapshots that were loaded unverified (forced), in provenance order. */
export function unverifiedSnapshots(snapshots: readonly SnapshotProvenance[]): SnapshotProvenance[] {
  return snapshots.filter((snapshot) => snapshot.unverified !== undefined);
}

/** The warning about one unverified snapshot as plain text (the JSON report's `warning`). */
export function unverifiedWarning(snapshot: SnapshotProvenance): string {
  const asIs = (text: string): string => text;
  return warningText(snapshot, asIs, asIs);
}

/**
 * The warning about one snapshot; `data` escapes the snapshot id and file names (they come from the
 * snapshot), `own` our words.
 */
function warningText(
  snapshot: SnapshotProvenance,
  data: (raw: string) => string,
  own: (text: string) => string,
): string {
  const what = mismatchedFilesClause(snapshot.unverified?.files ?? [], data, own);
  return (
    `${own('Snapshot ')}${data(snapshot.snapshotId)}${own(' failed verification and was loaded anyway (forced): ')}` +
    `${what}${own('; these figures are not those of the snapshot whose root hash is shown.')}`
  );
}

/** The banner escaped for `text`'s format, or null when every snapshot was verified. */
export function unverifiedBanner(snapshots: readonly SnapshotProvenance[], text: ViewText): string | null {
  const unverified = unverifiedSnapshots(snapshots);
  if (unverified.length === 0) return null;
  const own = (words: string): string => text.context.own(words);
  const sentences = unverified.map((snapshot) => warningText(snapshot, (raw) => text.code(raw).value, own));
  if (text.context.format === 'md') return `${MARKDOWN_MARK} ${sentences.join('\n>\n> ')}\n`;
  const paragraphs = sentences.map((sentence, index) =>
    index === 0 ? `<p><strong>${own(UNVERIFIED_BANNER_LEAD)}</strong> ${sentence}</p>` : `<p>${sentence}</p>`,
  );
  return `${HTML_MARK}\n${paragraphs.join('\n')}\n</div>\n`;
}

/** `document` with `banner` near its top: after the Markdown title line, or after HTML's `<body>`. */
export function insertUnverifiedBanner(document: string, banner: string, format: TemplateFormat): string {
  if (format === 'md') {
    const titleEnd = document.startsWith('# ') ? document.indexOf('\n') : -1;
    if (titleEnd === -1) return `${banner}\n${document}`;
    return `${document.slice(0, titleEnd + 1)}\n${banner}${document.slice(titleEnd + 1)}`;
  }
  const body = /<body\b[^>]*>\n?/iu.exec(document);
  if (body === null) return `${banner}${document}`;
  const at = body.index + body[0].length;
  return `${document.slice(0, at)}${banner}${document.slice(at)}`;
}

/**
 * Whether a rendered report (Markdown, HTML, or the JSON report) carries the unverified-snapshot
 * warning. Only the banner's own shape counts: a Markdown line starting with it, the HTML element,
 * the JSON report's `unverified_snapshots` list.
 */
export function reportMarkedUnverified(text: string, format: 'md' | 'html' | 'json'): boolean {
  if (format === 'md') return text.split('\n').some((line) => line.startsWith(MARKDOWN_MARK));
  if (format === 'html') return text.includes(HTML_MARK);
  try {
    const report = JSON.parse(text) as { unverified_snapshots?: unknown } | null;
    return Array.isArray(report?.unverified_snapshots) && report.unverified_snapshots.length > 0;
  } catch {
    return false;
  }
}

/**
 * The /Subject of a PDF printed from a report that carries the banner: the banner's lead, then what
 * it means. Printable ASCII, so it reads as is in the file's bytes too; viewers show it among the
 * document's properties (`pdfinfo` prints it as "Subject:").
 */
export const UNVERIFIED_PDF_SUBJECT =
  `${UNVERIFIED_BANNER_LEAD} Made from a snapshot that failed verification and was loaded anyway ` +
  '(forced): its figures are not those of the snapshot whose root hash it shows.';

/**
 * Whether a PDF (its bytes as a latin1 string) carries the mark: an information dictionary whose
 * /Subject starts with the banner's lead. Text on its pages does not count (it is compressed, and data
 * could print anything). Throws PdfSyntaxError when the PDF's structure cannot be read (pdf-syntax.ts
 * reads the classic cross-reference table Chromium writes, not streams or incremental updates).
 */
export function pdfMarkedUnverified(pdf: string): boolean {
  const info = infoDictionary(pdf, parseCrossReference(pdf));
  const subject = info === null ? undefined : dictionaryEntry(info, 'Subject');
  return subject !== undefined && decodeTextString(pdf, subject.value).startsWith(UNVERIFIED_BANNER_LEAD);
}
