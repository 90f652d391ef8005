/**
 * A Chromium that exists but does not start (missing shared libraries, a wrapper script that fails,
 * a sandbox refusal) makes playwright-core throw ~40 lines: its launch command, a call log, ANSI
 * colour codes. The user needs one paragraph: which executable, that it failed to start, the
 * browser's own first complaint, and how to fix it. This module turns the one into the other.
 */

// eslint-disable-next-line no-control-regex -- ANSI escape sequences are exactly what we remove
const ANSI = /\u001b\[[0-9;?]*[ -/]*[@-~]/gu;
// eslint-disable-next-line no-control-regex -- other control characters must not reach the terminal
const CONTROLS = /[\u0000-\u001f\u007f-\u009f]/gu;
/** What the browser wrote on stderr, as playwright logs it: `[pid=123][err] <line>`. */
const BROWSER_STDERR = /^\s*(?:-\s*)?\[pid=\d+\]\[err\]\s*(.*)$/u;
const EXIT_CODE = /exitCode=(\d+)/u;
/** Longest browser line quoted; a stack dump of its own is not a message. */
const MAX_LINE = 300;

/** The browser's first meaningful line (its own stderr first, else playwright's headline), cleaned. */
export function firstMeaningfulLine(message: string): string | null {
  const lines = message
    .replace(ANSI, '')
    .split(/\r?\n/u)
    .map((line) => line.replace(CONTROLS, ' ').trim());
  for (const line of lines) {
    const stderr = BROWSER_STDERR.exec(line)?.[1]?.trim();
    if (stderr) return clip(stderr);
  }
  // Playwright's headline, without the API name it prefixes (`browserType.launchPersistentContext: `).
  const headline = lines.find((line) => line !== '')?.replace(/^[\w.]+: /u, '');
  return headline ? clip(headline) : null;
}

/** One paragraph for a Chromium at `executablePath` that did not start; `error` is playwright's. */
export function chromiumLaunchFailureMessage(executablePath: string, error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  const exit = EXIT_CODE.exec(text)?.[1];
  const detail = firstMeaningfulLine(text);
  return (
    `PDF output: Chromium at ${executablePath.replace(CONTROLS, '?')} failed to start` +
    `${exit === undefined ? '' : ` (exit code ${exit})`}` +
    `${detail === null ? '.' : `: ${sentence(detail)}`} ` +
    'Install Debian\'s package "chromium" (apt-get install chromium) and check that ' +
    '"chromium --version" runs, or set AIRT_CHROMIUM to a Chromium executable that starts.'
  );
}

function sentence(text: string): string {
  return /[.!?…]$/u.test(text) ? text : `${text}.`;
}

function clip(line: string): string {
  return line.length > MAX_LINE ? `${line.slice(0, MAX_LINE)}…` : line;
}
