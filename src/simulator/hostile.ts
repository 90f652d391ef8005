/**
 * Attacker-controlled text the service really returns (jailbreak prompts, model output, operator
 * notes). The simulator plants these on purpose so every output context (HTML, Markdown, CSV,
 * terminals, file paths) is exercised against them. NUL characters and lone surrogates only with
 * the simulator option `brokenText` (BROKEN_TEXT below).
 */

/** 20 KB of mixed markup, table breakers, formulas and emoji: exercises truncation everywhere. */
export const HOSTILE_20KB: string = buildLongString(20 * 1024);

function buildLongString(length: number): string {
  const segment = 'Lorem <b>ipsum</b> | dolor =SUM(A1:A9) sit 🚀 amet\n<script>x()</script> ';
  let out = '';
  while (out.length + segment.length <= length) out += segment;
  // Pad with ASCII so the cut never splits a surrogate pair.
  return out + 'x'.repeat(length - out.length);
}

export const HOSTILE_STRINGS: readonly string[] = [
  '<script>alert("xss")</script>',
  '<img src=x onerror=alert(1)>',
  '[click here](javascript:alert(document.cookie))',
  '| col | injected |\n|---|---|\n| row | broken |',
  'line one\nline two\r\n## Injected heading',
  '=HYPERLINK("http://x","y")',
  "+cmd|' /C calc'!A0",
  '-1',
  "@SUM(1+1)*cmd|' /C calc'!A0",
  'invoice\u202Efdp.exe',
  '😈🔥 emoji 👩‍💻 with a ZWJ sequence',
  'bell\u0007 backspace\u0008 \u001b[31mred terminal\u001b[0m',
  '{{constructor.constructor("alert(1)")()}}',
  '</textarea><svg onload=alert(1)>',
  "'; DROP TABLE trials; --",
  '${process.env.AIRT_TOKEN}',
  '```\nunterminated code fence',
];

/**
 * Valid JSON that stresses a reader beyond HOSTILE_STRINGS (simulator option `brokenText`): model
 * output cut inside an emoji (a lone surrogate, serialized as the escape `\ud83e`), a NUL character,
 * a 1 MB response, and a key the API spec does not know. Applied to an assessment's first trials.
 */
export const BROKEN_TEXT = {
  loneSurrogate: 'Sure, here is the plan \ud83e',
  nul: 'before\u0000after',
  megabyte: 'y'.repeat(1024 * 1024),
} as const;

/** The trial at `position` (0-based in its assessment's list) with BROKEN_TEXT planted, if any. */
export function withBrokenText<T extends { response: string; candidate: string }>(
  trial: T,
  position: number,
): T {
  if (position === 0) return { ...trial, response: BROKEN_TEXT.loneSurrogate };
  if (position === 1) return { ...trial, candidate: BROKEN_TEXT.nul, unknown_key_x: { nested: [1] } };
  if (position === 2) return { ...trial, response: BROKEN_TEXT.megabyte };
  return trial;
}

/** Hostile names for projects, assessments and evaluation jobs. */
export const HOSTILE_NAMES: readonly string[] = [
  'Payments <img src=x onerror=alert(1)> | bot',
  'Q4 sweep =HYPERLINK("http://x","y")',
  'Release\u202Eexe.2v candidate',
  'Agent 🤖 | tools\nnew line',
];
