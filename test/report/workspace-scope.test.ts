/**
 * A figure's scope is explicit: project keys are unique only inside a workspace. One database holds
 * the same fixture snapshot as three workspaces (acme/prod, acme/staging, globex/prod): every place a
 * project appears names its org and workspace, an ambiguous --project is a usage error listing them,
 * --org/--workspace choose, and a diff never compares two workspaces. A single-workspace database
 * shows none of it.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { recordingIO } from '../../src/cli/io.js';
import { EXIT } from '../../src/errors.js';
import { loadSnapshots } from '../../src/warehouse/loader.js';
import { makeTempDir } from '../helpers/temp-dirs.js';
import { copyFixture, FIXTURES, reseal } from '../warehouse/helpers.js';

const WORKSPACES = [
  ['acme', 'prod'],
  ['acme', 'staging'],
  ['globex', 'prod'],
] as const;

/** Snapshot ids differ by suffix, so the three snapshots taken "at the same second" stay apart. */
const idOf = (org: string, workspace: string): string => `20260301T060000Z-${org}-${workspace}`;

let dir: string;
let multi: string;
let single: string;

/** The fixture snapshot re-sealed as one of `org/workspace`'s. */
async function workspaceSnapshot(org: string, workspace: string): Promise<string> {
  const into = path.join(dir, 'snapshots', org, workspace);
  const copied = await copyFixture(FIXTURES.first, into);
  await reseal(copied, (manifest) => {
    manifest.org = org;
    manifest.workspace = workspace;
    manifest.snapshot_id = idOf(org, workspace);
  });
  return copied;
}

async function cli(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const io = recordingIO({ cwd: dir });
  const code = await main(args, io);
  return { code, out: io.out.join(''), err: io.err.join('') };
}

async function report(db: string, name: string, ...args: string[]): Promise<string> {
  const out = path.join(dir, name);
  const run = await cli('report', '--db', db, '--format', 'md', '--out', `${out}/`, ...args);
  expect(run.err).toBe('');
  expect(run.code).toBe(0);
  return readFile(path.join(out, 'report.md'), 'utf8');
}

beforeAll(async () => {
  dir = await makeTempDir('airt-scope-');
  const snapshots = [];
  for (const [org, workspace] of WORKSPACES) snapshots.push(await workspaceSnapshot(org, workspace));
  multi = path.join(dir, 'multi.duckdb');
  single = path.join(dir, 'single.duckdb');
  const now = () => new Date('2026-04-01T00:00:00Z');
  await loadSnapshots(multi, snapshots, { now });
  await loadSnapshots(single, [FIXTURES.first, FIXTURES.second], { now });
});

describe('a database holding three workspaces', () => {
  it('names each portfolio row’s org and workspace', async () => {
    const md = await report(multi, 'portfolio', '--kind', 'portfolio');
    expect(md).toContain('| Project | Key | Org / workspace | Risk level |');
    const rows = md.split('\n').filter((line) => line.includes('| `support-agent` |'));
    expect(rows.map((line) => /\| (acme|globex)\/(prod|staging) \|/u.exec(line)?.[0])).toEqual([
      '| acme/prod |',
      '| acme/staging |',
      '| globex/prod |',
    ]);
  });

  it('refuses an ambiguous --project with exit 2, listing the workspaces that hold it', async () => {
    const run = await cli(
      'report',
      '--db',
      multi,
      '--kind',
      'executive',
      '--project',
      'support-agent',
      '--format',
      'md',
      '--out',
      path.join(dir, 'ambiguous/'),
    );
    expect(run.code).toBe(EXIT.usage);
    expect(run.err).toContain('is in 3 workspaces');
    for (const [org, workspace] of WORKSPACES) {
      expect(run.err).toContain(`"${org}/${workspace}" (snapshot ${idOf(org, workspace)})`);
    }
    expect(run.err).toContain('--org and --workspace');
  });

  it('reports on the project --org/--workspace choose, naming its workspace in the title', async () => {
    const md = await report(
      multi,
      'globex',
      '--kind',
      'executive',
      '--project',
      'support-agent',
      '--org',
      'globex',
      '--workspace',
      'prod',
    );
    expect(md.split('\n')[0]).toMatch(/^# Executive red-team report: .* \\\(globex\/prod\\\)$/u);
    expect(md).toContain(idOf('globex', 'prod'));
    expect(md).not.toContain(idOf('acme', 'prod'));
    // --workspace alone is enough when it is unique.
    const staging = await report(
      multi,
      'staging',
      '--kind',
      'compliance',
      '--project',
      'support-agent',
      '--workspace',
      'staging',
    );
    expect(staging.split('\n')[0]).toMatch(/ \\\(acme\/staging\\\)$/u);
  });

  it('refuses a diff across workspaces, and one outside the --org/--workspace given', async () => {
    const across = await cli(
      'diff',
      '--db',
      multi,
      '--from',
      idOf('acme', 'prod'),
      '--to',
      idOf('globex', 'prod'),
    );
    expect(across.code).toBe(EXIT.usage);
    expect(across.err).toContain('belong to different workspaces');
    expect(across.out).toBe('');
    const outside = await cli(
      'diff',
      '--db',
      multi,
      '--from',
      idOf('acme', 'prod'),
      '--to',
      idOf('acme', 'prod'),
      '--org',
      'globex',
    );
    expect(outside.code).toBe(EXIT.usage);
    expect(outside.err).toContain('not "globex/prod"');
    const same = await cli(
      'diff',
      '--db',
      multi,
      '--from',
      idOf('acme', 'prod'),
      '--to',
      idOf('acme', 'prod'),
    );
    expect(same.code).toBe(0);
    expect(same.out).toContain('Org and workspace: `acme/prod`.');
    expect(same.out).toContain('## Project support-agent (`acme/prod`)');
  });

  it('lists each workspace’s rows apart in named queries that list projects', async () => {
    const run = await cli('query', '@compliance_coverage', '--db', multi, '--format', 'csv');
    expect(run.code).toBe(0);
    const [header, ...lines] = run.out.trim().split('\n');
    expect(header?.startsWith('org,workspace,project_key,')).toBe(true);
    const scopes = new Set(
      lines
        .filter((line) => line.includes(',support-agent,'))
        .map((line) => line.split(',').slice(0, 2).join('/')),
    );
    expect([...scopes].sort()).toEqual(['acme/prod', 'acme/staging', 'globex/prod']);
  });
});

describe('a database holding one workspace', () => {
  it('shows no org/workspace in reports or diffs', async () => {
    const portfolio = await report(single, 'single-portfolio', '--kind', 'portfolio');
    expect(portfolio).not.toContain('Org / workspace');
    const executive = await report(
      single,
      'single-exec',
      '--kind',
      'executive',
      '--project',
      'support-agent',
    );
    expect(executive.split('\n')[0]).not.toContain('acme/main');
    const diff = await cli(
      'diff',
      '--db',
      single,
      '--from',
      '20260301T060000Z-first',
      '--to',
      '20260315T060000Z-second',
    );
    expect(diff.code).toBe(0);
    expect(diff.out).not.toContain('Org and workspace');
    const json = await cli(
      'diff',
      '--db',
      single,
      '--from',
      '20260301T060000Z-first',
      '--to',
      '20260315T060000Z-second',
      '--format',
      'json',
    );
    expect(JSON.parse(json.out)).not.toHaveProperty('workspace');
  });
});
