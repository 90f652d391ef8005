/** A load's waiter note (warehouse-lock.ts) counts only while its process runs, and only for its file. */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { writerWaiting } from '../../src/warehouse/warehouse-lock.js';
import { makeTempDir } from '../helpers/temp-dirs.js';

describe('writerWaiting', () => {
  it('sees a live waiter of the file, not a dead one, not another file’s', async () => {
    const dir = await makeTempDir('airt-waiter-');
    const db = path.join(dir, 'airt.duckdb');
    expect(await writerWaiting(db)).toBe(false);
    // A pid no process has (beyond the kernel's pid_max): a killed load's leftover note.
    await writeFile(`${db}.waiting-4194305`, 'airt-report load\n');
    await writeFile(path.join(dir, `other.duckdb.waiting-${process.pid}`), 'airt-report load\n');
    await writeFile(`${db}.waiting-not-a-pid`, '');
    expect(await writerWaiting(db)).toBe(false);
    await writeFile(`${db}.waiting-${process.pid}`, 'airt-report load\n');
    expect(await writerWaiting(db)).toBe(true);
  });
});
