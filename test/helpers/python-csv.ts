/**
 * CSV read back the way a user's tools read it: Python's csv module (a real consumer, not our own
 * writer's inverse), for the viewer's CSV downloads.
 */
import { execFileSync } from 'node:child_process';

/** The rows Python's csv.reader gives for `text`. */
export function pythonCsv(text: string): string[][] {
  const out = execFileSync(
    'python3',
    ['-c', 'import csv,json,sys; print(json.dumps(list(csv.reader(sys.stdin))))'],
    { input: text, encoding: 'utf8' },
  );
  return JSON.parse(out) as string[][];
}
