/**
 * Notes, ids echoed back and error details are attacker-influenced text (a finding's notes can quote a
 * jailbreak prompt). Printed raw, control characters could move the cursor, rewrite earlier lines or
 * change the terminal title, and bidi overrides could make `false_positive` read as something else.
 * Everything we print that came from a file or the service passes through one of these two helpers.
 */

// C0 controls except tab/newline, DEL, C1 controls: matching control characters is the point here.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/gu;
// Bidi embeddings/overrides/isolates and marks, plus zero-width characters that hide text.
const INVISIBLE = /[\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/gu;

/**
 * One line of terminal-safe text: control and bidi characters become `\uXXXX`-style visible escapes,
 * tabs and newlines become `⏎`/space, and anything longer than `maxLength` is cut with `…`.
 */
export function terminalSafe(text: string, maxLength = Number.POSITIVE_INFINITY): string {
  const visible = text
    .replace(/\r\n|\r|\n/gu, ' ⏎ ')
    .replace(/\t/gu, ' ')
    .replace(CONTROL, escapeCodePoint)
    .replace(INVISIBLE, escapeCodePoint);
  const chars = [...visible];
  if (chars.length <= maxLength) return visible;
  return `${chars.slice(0, Math.max(0, maxLength - 1)).join('')}…`;
}

/**
 * JSON text for a terminal: `JSON.stringify` already escapes C0 controls; this also escapes DEL, C1
 * controls and bidi/zero-width characters as `\uXXXX`, which is still valid JSON for the same value.
 */
export function terminalSafeJson(value: unknown, indent = 2): string {
  return JSON.stringify(value, null, indent).replace(CONTROL, jsonEscape).replace(INVISIBLE, jsonEscape);
}

function escapeCodePoint(char: string): string {
  return `\\u{${char.codePointAt(0)?.toString(16).padStart(4, '0') ?? ''}}`;
}

function jsonEscape(char: string): string {
  return `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;
}
