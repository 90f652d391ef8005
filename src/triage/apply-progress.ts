/**
 * Progress of a bulk apply on stderr. On a terminal: one status line redrawn in place (`\r`, erase
 * line) after every row. Elsewhere (CI logs, pipes, tests): one plain line per 10% of the rows, so a
 * log shows movement without one line per row. Outcomes that need attention (failed, unknown) get a
 * line of their own at once in both modes, above the status line.
 *
 * Not cli-progress: its bar saves and restores the cursor position, which puts the final bar on top of
 * the failure lines printed while it ran.
 */
import { describedOptionName } from '../errors.js';
import type { RowOutcome } from './apply-decisions.js';
import { outcomeErrorText } from './send-change.js';
import { terminalSafe } from './terminal-text.js';

export interface ApplyProgress {
  start(total: number): void;
  outcome(outcome: RowOutcome): void;
  /** A message of its own (e.g. a retry), printed above the status line. */
  note(line: string): void;
  stop(): void;
}

export interface ApplyProgressOptions {
  /** CliIO.stderr */
  write: (text: string) => void;
  isTTY: boolean;
  /** How a row's error spells the options it names (the CLI: its flags); default plain words. */
  optionName?: (option: string) => string;
}

const ERASE_LINE = '\r\u001b[2K';

export function createApplyProgress(options: ApplyProgressOptions): ApplyProgress {
  const counts = { done: 0, applied: 0, failed: 0, unknown: 0 };
  let total = 0;
  let nextPlainLine = 0;
  let statusShown = false;

  const status = (): string =>
    `triage apply: ${counts.done}/${total} rows, ${counts.applied} applied, ${counts.failed} failed, ` +
    `${counts.unknown} outcome unknown`;
  const redraw = (): void => {
    options.write(`${ERASE_LINE}${status()}`);
    statusShown = true;
  };

  return {
    start(count) {
      total = count;
      nextPlainLine = Math.max(1, Math.ceil(total / 10));
      if (options.isTTY && total > 0) redraw();
    },
    outcome(outcome) {
      const { row, entry } = outcome;
      counts.done += 1;
      if (entry.outcome === 'applied') counts.applied += 1;
      else if (entry.outcome === 'failed') counts.failed += 1;
      else counts.unknown += 1;
      if (entry.outcome !== 'applied') {
        const label = entry.outcome === 'failed' ? 'failed' : 'OUTCOME UNKNOWN (not re-sent)';
        const line = `row ${row.row} (${row.findingId}): ${label}: ${terminalSafe(outcomeErrorText(outcome, options.optionName ?? describedOptionName) ?? '', 300)}\n`;
        options.write(options.isTTY ? `${ERASE_LINE}${line}` : line);
      }
      if (options.isTTY) redraw();
      else if (counts.done >= nextPlainLine || counts.done === total) {
        options.write(`${status()}\n`);
        nextPlainLine = counts.done + Math.max(1, Math.ceil(total / 10));
      }
    },
    note(line) {
      options.write(options.isTTY ? `${ERASE_LINE}${line}` : line);
      if (statusShown) redraw();
    },
    stop() {
      if (statusShown) options.write('\n');
      statusShown = false;
    },
  };
}
