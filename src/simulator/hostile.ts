/**
 * Attacker-controlled text the service really returns (jailbreak prompts, model output, operator
 * notes). The simulator plants these on purpose so every output context (HTML, Markdown, CSV,
 * terminals, file paths) is exercised against them. No NUL characters and no lone surrogates: the
 * service's JSON never carries those.
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

/** Hostile names for projects, assessments and evaluation jobs. */
export const HOSTILE_NAMES: readonly string[] = [
  'Payments <img src=x onerror=alert(1)> | bot',
  'Q4 sweep =HYPERLINK("http://x","y")',
  'Release\u202Eexe.2v candidate',
  'Agent 🤖 | tools\nnew line',
];
