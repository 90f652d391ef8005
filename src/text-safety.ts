/**
 * Text safety for every human-facing output: the one place that decides which characters of
 * attacker-influenced text (finding names, goals, notes, model output, service error details) may
 * reach a terminal or a Markdown file raw.
 *
 * Unsafe are characters that act instead of showing: C0/C1 controls (ANSI escape sequences move the
 * cursor, rewrite lines, set the title), bidi embeddings/overrides/isolates and marks (U+202E makes
 * `false_positive` read backwards), zero-width and invisible characters (U+200B, U+2060, U+FEFF hide
 * text or split words that look whole) and the Unicode line/paragraph separators U+2028/U+2029 (they
 * break a line that a reader or a Markdown table expects whole). They are shown visibly, never
 * dropped, so a reader can still see that the data held them.
 *
 * Leaf module: imported downward by the report, the query formats, the diff, the run summary, bundle
 * verification, the API error text and triage output, so no two layers import each other for it.
 */

// C0 controls except tab and line feed (callers decide what those become), DEL and C1 controls.
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const CONTROLS = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/gu;
// Bidi marks/embeddings/overrides/isolates (U+061C, U+200E/F, U+202A-E, U+2066-9), zero-width and
// invisible characters (U+200B-D, U+2060-5, U+FEFF), line/paragraph separators (U+2028/9).
const INVISIBLE = /[\u061C\u200B-\u200F\u2028-\u202E\u2060-\u2069\uFEFF]/gu;
// Lone surrogates (invalid UTF-16); without the u flag so the regex sees code units.
const LONE_SURROGATES = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

function braceEscape(char: string): string {
  return `\\u{${(char.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}}`;
}

function jsonEscape(char: string): string {
  return `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/**
 * Shows every unsafe character (see the module comment) as `show(char)`; tab and line feed are kept.
 * The default shows `\u{202e}`; the report passes its `[U+202E]` label.
 */
export function showUnsafeCharacters(text: string, show: (char: string) => string = braceEscape): string {
  return text.replace(CONTROLS, show).replace(INVISIBLE, show);
}

/**
 * Whether `text` holds any unsafe character (see the module comment), tab and line feed included:
 * for names that must be refused rather than shown (zip entry names).
 */
export function hasUnsafeCharacter(text: string): boolean {
  // search() ignores the global regexes' lastIndex, so the shared patterns stay stateless here.
  return /[\t\n]/u.test(text) || text.search(CONTROLS) !== -1 || text.search(INVISIBLE) !== -1;
}

/** Lone surrogates (a model output cut inside an emoji) become U+FFFD, as any UTF-8 writer would make them. */
export function replaceLoneSurrogates(text: string): string {
  return text.replace(LONE_SURROGATES, '\uFFFD');
}

/** Multi-line text for a terminal or a log: unsafe characters shown as `\u{…}`, tabs and newlines kept. */
export function neutralizeControls(text: string): string {
  return showUnsafeCharacters(text);
}

/**
 * One line of terminal-safe text: unsafe characters become `\u{…}` escapes, newlines ` ⏎ `, tabs a
 * space, and anything longer than `maxLength` code points is cut with `…`.
 */
export function terminalSafe(text: string, maxLength = Number.POSITIVE_INFINITY): string {
  const visible = showUnsafeCharacters(text.replace(/\r\n|\r|\n/gu, ' ⏎ ').replace(/\t/gu, ' '));
  const chars = [...visible];
  if (chars.length <= maxLength) return visible;
  return `${chars.slice(0, Math.max(0, maxLength - 1)).join('')}…`;
}

/**
 * JSON for a terminal or a file a person may `cat`: `JSON.stringify` escapes C0 controls; this also
 * writes DEL, C1, bidi, zero-width and separator characters as `\uXXXX`, still valid JSON for the same
 * value (a parser reads back exactly the original string).
 */
export function terminalSafeJson(value: unknown, indent = 2): string {
  return showUnsafeCharacters(JSON.stringify(value, null, indent), jsonEscape);
}

/**
 * GFM turns bare URLs, `www.` names and e-mail addresses into live links: a backslash before the `:`
 * of `://`, the `.` after `www` and every `@` keeps them plain text from the data.
 */
const AUTOLINK_TRIGGERS = /:(?=\/\/)|(?<=\bwww)\.|@/giu;

/**
 * A Markdown table cell (also fine in a heading or list item) that cannot break the table, inject
 * HTML or become a link: `|`, `\`, emphasis, code and link characters and autolink triggers
 * backslash-escaped, `& < >` as entities, unsafe characters and tabs shown as `\u{…}`, line breaks as
 * `<br>`. Plain punctuation (a time's `:`, a number's `.`) stays as it is. A tab is shown too: raw, it
 * reads as blank space in the rendered table and in a terminal, hiding that the data held one.
 */
export function escapeMarkdownCell(text: string): string {
  return showUnsafeCharacters(
    text
      .replace(/[\\|*_`[\]]/gu, (c) => `\\${c}`)
      .replace(AUTOLINK_TRIGGERS, (c) => `\\${c}`)
      .replace(/&/gu, '&amp;')
      .replace(/</gu, '&lt;')
      .replace(/>/gu, '&gt;')
      .replace(/\r\n|\r|\n/gu, '<br>'),
  ).replace(/\t/gu, braceEscape);
}

/**
 * A Markdown code span that stays one span in any context: line breaks become spaces, unsafe
 * characters are shown as `\u{…}` (a code span shows them raw otherwise), `|` becomes "¦" because a
 * pipe cannot be written portably inside a code span that may sit in a table cell, and the fence is
 * longer than any backtick run inside.
 */
export function markdownCode(text: string): string {
  const body = showUnsafeCharacters(
    text.replace(/\r\n|[\r\n\u0085\u2028\u2029]/gu, ' ').replace(/\t/gu, ' '),
  ).replace(/\|/gu, '¦');
  const longestRun = Math.max(0, ...Array.from(body.matchAll(/`+/gu), (match) => match[0].length));
  const fence = '`'.repeat(longestRun + 1);
  const pad = body.startsWith('`') || body.endsWith('`') || body.startsWith(' ') ? ' ' : '';
  return body.length === 0 ? '' : `${fence}${pad}${body}${pad}${fence}`;
}

/**
 * ASCII punctuation that means something to GitHub-flavoured Markdown: emphasis, code, links and
 * images, raw HTML and entities, table pipes, headings and lists, autolinks (`:` of a scheme, `@` of
 * an e-mail, `.` of `www.`), math (`$`) and emoji shortcodes (`:`). CommonMark lets any ASCII
 * punctuation be backslash-escaped, and GFM tables treat `\|` as a literal pipe.
 */
const MARKDOWN_SPECIAL = /[\\`*_{}[\]()<>#+\-.!|~&:@$=]/gu;

/**
 * Markdown inline text, safe in paragraphs, list items, headings and table cells: line breaks become a
 * visible "↵" (a newline would end a table row or paragraph), every special character is escaped, so
 * no emphasis, link, image, autolink, raw HTML or extra cell can come from the data, and unsafe
 * characters are shown as `\u{…}` (Markdown passes them through, and stdout prints this Markdown raw).
 */
export function escapeMarkdownText(text: string): string {
  // Shown after escaping, as in escapeMarkdownCell: the `\u{…}` reads the same in the source as rendered.
  return showUnsafeCharacters(
    text.replace(/\r\n|[\r\n\u0085\u2028\u2029]/gu, ' ↵ ').replace(MARKDOWN_SPECIAL, (char) => `\\${char}`),
  );
}
