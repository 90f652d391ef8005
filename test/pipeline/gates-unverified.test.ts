/**
 * Gates and diffs measured on a snapshot loaded although it failed verification (`load --force`) say
 * so, as its reports do: the gate report and the diff (Markdown and JSON) carry the same warning at
 * their top, a verified load's none, and a bundle holding such a gate report or diff is not written
 * (verify BUNDLE.zip would fail it). Before, they read like any other.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { recordingIO } from '../../src/cli/io.js';
import { BundleCheckError, writeBundle } from '../../src/pipeline/bundle.js';
import type { GateReport } from '../../src/pipeline/gate-report.js';
import { diffMarkdown } from '../../src/diff/diff-report.js';
import { diffSnapshots } from '../../src/diff/snapshot-diff.js';
import { openWarehouse } from '../../src/warehouse/db.js';
import { makeTempDir } from '../helpers/temp-dirs.js';
import { forcedLoadFixture, type ForcedLoad } from '../report/unverified-snapshot-fixture.js';

let work: string;
let fixture: ForcedLoad;

beforeAll(async () => {
  work = await makeTempDir('airt-gates-unverified-');
  fixture = await forcedLoadFixture(path.join(work, 'fixture'));
});

/** `gates` on `database` (its one snapshot): the Markdown and the JSON report. */
async function gates(
  database: string,
  name: string,
): Promise<{ md: string; json: GateReport; mdFile: string }> {
  const dir = path.join(work, name);
  await mkdir(dir);
  const config = path.join(dir, 'cfg.json');
  await writeFile(
    config,
    JSON.stringify({
      connection: { base_url: 'http://127.0.0.1:9', org: 'acme', workspace: 'main' },
      database,
      gates: ['overall_asr <= 1'],
    }),
  );
  const mdFile = path.join(dir, 'gate-report.md');
  const jsonFile = path.join(dir, 'gate-report.json');
  const io = recordingIO({ cwd: dir });
  expect(
    await main(['gates', '--config', config, '--md', mdFile, '--json', jsonFile], io),
    io.err.join(''),
  ).toBe(0);
  return {
    md: await readFile(mdFile, 'utf8'),
    json: JSON.parse(await readFile(jsonFile, 'utf8')) as GateReport,
    mdFile,
  };
}

describe('gates on a forced load', () => {
  it('says so at the top of the gate report, Markdown and JSON; a verified load does not', async () => {
    const forced = await gates(fixture.forcedDb, 'forced');
    expect(forced.md.split('\n')[2]).toBe(
      `> **WARNING: UNVERIFIED DATA.** \`${fixture.snapshotId}\` failed verification and was loaded anyway (forced): these gate results rest on files that do not match the manifest, not on the snapshot whose root hash is shown.`,
    );
    expect(forced.json.unverified_snapshots).toEqual([fixture.snapshotId]);
    const verified = await gates(fixture.verifiedDb, 'verified');
    expect(verified.md).not.toContain('UNVERIFIED');
    expect(verified.json).not.toHaveProperty('unverified_snapshots');
  });

  it('a bundle holding that gate report is not written', async () => {
    const forced = await gates(fixture.forcedDb, 'forced-bundle');
    const out = path.join(work, 'forced-bundle', 'bundle.zip');
    const bundling = writeBundle({
      out,
      snapshotDir: fixture.genuine,
      includeSnapshot: false,
      files: [{ name: 'gate-report.md', path: forced.mdFile }],
    });
    await expect(bundling).rejects.toBeInstanceOf(BundleCheckError);
    await expect(bundling).rejects.toThrow(/gate-report\.md: made from a snapshot that failed verification/);
  });

  it('the diff says so too, and a bundle holding it is not written', async () => {
    const diffOf = async (database: string) => {
      const warehouse = await openWarehouse(database, { readOnly: true });
      try {
        return await diffSnapshots(warehouse.conn, { from: null, to: fixture.snapshotId });
      } finally {
        warehouse.close();
      }
    };
    const forced = await diffOf(fixture.forcedDb);
    expect(forced.unverified_snapshots).toEqual([fixture.snapshotId]);
    const markdown = diffMarkdown(forced);
    expect(markdown.split('\n')[2]).toBe(
      `> **WARNING: UNVERIFIED DATA.** \`${fixture.snapshotId}\` failed verification and was loaded anyway (forced): these changes rest on files that do not match the manifest.`,
    );
    const verified = await diffOf(fixture.verifiedDb);
    expect(verified).not.toHaveProperty('unverified_snapshots');
    expect(diffMarkdown(verified)).not.toContain('UNVERIFIED');
    const dir = path.join(work, 'forced-diff');
    await mkdir(dir);
    await writeFile(path.join(dir, 'diff.md'), markdown);
    await expect(
      writeBundle({
        out: path.join(dir, 'bundle.zip'),
        snapshotDir: fixture.genuine,
        includeSnapshot: false,
        files: [{ name: 'diff.md', path: path.join(dir, 'diff.md') }],
      }),
    ).rejects.toThrow(/diff\.md: made from a snapshot that failed verification/);
  });
});
