/**
 * The package as a user gets it: `npm pack` of a fresh build, the tarball unpacked into a temporary
 * project's node_modules (what `npm install <tarball>` does with it), and examples/library.ts — the
 * program the README shows — type-checked against the installed declarations through `exports` and
 * run against the simulator on 127.0.0.1: snapshot, load, one report.
 *
 * Offline by design: the temporary project lives under test-artifacts/ inside the repository, so the
 * package's dependencies resolve from the repository's node_modules further up, as Node resolves any
 * dependency; nothing is fetched from a registry.
 */
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TSC = path.join(ROOT, 'node_modules/typescript/bin/tsc');
const run = promisify(execFile);

let work: string;
let tarball: string;
let project: string;

/** Paths of the files under `dir`, relative to it, with their modification times. */
async function filesOf(dir: string): Promise<Map<string, number>> {
  const found = new Map<string, number>();
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    found.set(path.relative(dir, file), (await stat(file)).mtimeMs);
  }
  return found;
}

/**
 * Whether dist/ is a clean build of the sources, as `npm ci` leaves it (its prepare script builds it):
 * exactly one .js and one .d.ts per source file and nothing else, none older than a source or the
 * build config. Such a dist is what compiling again would give, so it is copied (a build takes ~20 s
 * of CPU); a stale, partial or extra file means the sources are compiled into the stage as before.
 */
async function distIsCleanBuild(): Promise<boolean> {
  const dist = await filesOf(path.join(ROOT, 'dist')).catch(() => new Map<string, number>());
  const sources = await filesOf(path.join(ROOT, 'src'));
  const expected = [...sources.keys()].flatMap((file) => {
    const stem = file.replace(/\.ts$/u, '');
    return [`${stem}.js`, `${stem}.d.ts`];
  });
  if (dist.size !== expected.length || !expected.every((file) => dist.has(file))) return false;
  const configs = await Promise.all(
    ['tsconfig.json', 'tsconfig.build.json'].map(async (f) => (await stat(path.join(ROOT, f))).mtimeMs),
  );
  return Math.min(...dist.values()) >= Math.max(...sources.values(), ...configs);
}

beforeAll(async () => {
  await mkdir(path.join(ROOT, 'test-artifacts'), { recursive: true });
  work = await mkdtemp(path.join(ROOT, 'test-artifacts', 'pack-'));
  // A clean build of exactly what `files` ships, so stale files of an old dist/ cannot hide a gap (dist/
  // itself only when it is one: distIsCleanBuild).
  const stage = path.join(work, 'stage');
  const manifest = JSON.parse(await readFile(path.join(ROOT, 'package.json'), 'utf8')) as { files: string[] };
  await mkdir(stage);
  for (const entry of [
    ...manifest.files.filter((f) => f !== 'dist'),
    'package.json',
    'README.md',
    'LICENSE',
  ]) {
    await cp(path.join(ROOT, entry), path.join(stage, entry), { recursive: true });
  }
  if (await distIsCleanBuild())
    await cp(path.join(ROOT, 'dist'), path.join(stage, 'dist'), { recursive: true });
  else
    await run(process.execPath, [
      TSC,
      '-p',
      path.join(ROOT, 'tsconfig.build.json'),
      '--outDir',
      path.join(stage, 'dist'),
    ]);
  const packed = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], {
    cwd: stage,
  });
  const [info] = JSON.parse(packed.stdout) as [{ filename: string }];
  tarball = path.join(work, info.filename);

  project = path.join(work, 'consumer');
  const installed = path.join(project, 'node_modules', 'airt-report');
  await mkdir(installed, { recursive: true });
  await run('tar', ['-xzf', tarball, '-C', installed, '--strip-components=1']);
  await writeFile(path.join(project, 'package.json'), JSON.stringify({ type: 'module', private: true }));
  await cp(path.join(ROOT, 'examples', 'library.ts'), path.join(project, 'library.ts'));
  await writeFile(
    path.join(project, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2023',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        strict: true,
        skipLibCheck: true,
        types: ['node'],
        outDir: 'out',
      },
      include: ['library.ts'],
    }),
  );
}, 120_000);

afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

describe('the packed package', () => {
  it('ships dist with declarations, no source maps, and the license and changelog', async () => {
    const listed = await run('tar', ['-tzf', tarball]);
    const files = listed.stdout.trim().split('\n');
    expect(files).toContain('package/dist/index.js');
    expect(files).toContain('package/dist/index.d.ts');
    expect(files).toContain('package/dist/simulator/index.d.ts');
    expect(files).toContain('package/LICENSE');
    expect(files).toContain('package/CHANGELOG.md');
    expect(files).toContain('package/bin/airt-report.cjs');
    expect(files.filter((f) => f.endsWith('.map'))).toEqual([]);
    expect(files.filter((f) => f.startsWith('package/src/') || f.startsWith('package/test/'))).toEqual([]);
  });

  it('type-checks the README example against the installed types and runs it: snapshot, load, report', async () => {
    await run(process.execPath, [TSC, '-p', project], { cwd: project });
    const output = path.join(work, 'example-output');
    await mkdir(output);
    const result = await run(process.execPath, [path.join(project, 'out', 'library.js'), output], {
      cwd: project,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, TZ: 'UTC' },
    });
    expect(result.stdout).toMatch(/^snapshot \S+: complete, \d+ files$/mu);
    const reportLine = /^report (.+)$/mu.exec(result.stdout);
    expect(reportLine).not.toBeNull();
    const report = await readFile(reportLine![1]!, 'utf8');
    expect(report).toMatch(/^# /mu);
    expect(await readdir(output)).toEqual(expect.arrayContaining(['airt.duckdb', 'snapshots']));
  });

  it('exposes only the documented entry points', async () => {
    const script = [
      "const main = await import('airt-report');",
      "const simulator = await import('airt-report/simulator');",
      "let internal = 'refused';",
      "try { await import('airt-report/dist/snapshot/safe-path.js'); internal = 'reachable'; } catch {}",
      'console.log(JSON.stringify({',
      '  takeSnapshot: typeof main.takeSnapshot, startSimulator: typeof simulator.startSimulator,',
      "  simulatorInMain: 'startSimulator' in main, internal }));",
    ].join('\n');
    const result = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: project });
    expect(JSON.parse(result.stdout)).toEqual({
      takeSnapshot: 'function',
      startSimulator: 'function',
      simulatorInMain: false,
      internal: 'refused',
    });
  });
});
