/**
 * Temporary directories for tests, removed after each test file (see test/setup.ts), so a suite run
 * leaves nothing behind in the system's temp directory.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

const created: string[] = [];

/** Creates `<tmp>/<prefix>XXXXXX` and registers it for removal when the test file ends. */
export async function makeTempDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), prefix));
  created.push(dir);
  return dir;
}

export async function removeTempDirs(): Promise<void> {
  await Promise.all(created.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
}
