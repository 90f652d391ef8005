/**
 * bench/nightly-snapshot: what a scheduled nightly snapshot costs once the data is on disk, as
 * `airt-report run` takes it (`--since` the previous snapshot, unchanged files shared by hard link).
 *
 * (a) day 2, nothing changed — the simulator's large preset (>= 1,000,000 trials): day 1 is a fresh
 *     snapshot, day 2 one with `--since` day 1 against the same epoch. Figures: day-2 time / day-1
 *     time (target <= 0.10) and day-2 new bytes on disk / day-1 bytes, files shared by hard link
 *     counted once (target <= 0.02).
 * (b) 30 days from that day 1, the simulator's epoch moving on each day (new assessments and jobs,
 *     runs finishing, one re-scored). Figures: total disk of the 30 snapshots / day 1 (target <= 3),
 *     and how each day's time follows its new data: a later day's share of day 1's time against its
 *     share of day 1's bytes, and a least-squares line time = a + b x fetched MB over days 2..30.
 *     Each day is also loaded into one database with the built CLI: the database's size, the
 *     snapshots and the database together / day 1's (target <= 3), and each load's time against the
 *     day's new data (the same share and line as the snapshot's).
 *     A night with nothing new (the epoch kept) is taken and loaded after day 30: its time is what any
 *     night costs whatever its data, so a changed night's time beyond it is its variable part, whose
 *     cost per fetched MB is compared with day 1's; the trend (seconds gained per day of history) and
 *     the median load (DuckDB merges small row groups of trial rows every few nights) are printed too.
 *     Every project summary changes each day (it lists all assessments, and one is added per project
 *     per epoch): ~9 MB a day on this shape whatever the trial count, which is why `--quick` (a tenth
 *     of the trials, same summaries) cannot meet the disk target and the full size can.
 *     Each day's load also reports its peak RSS (`load_peak_rss_mb`; the largest over days 2..30 is
 *     `later_days_max_load_peak_rss_mb`) and the rows it added to the shared tables' storage
 *     (`stored_rows_added`, exact where the file's size moves in blocks), with their trend per day of
 *     history (`stored_rows_added_trend_per_day`: 0 when a night stores only what changed).
 * (c) nights of different sizes: every day of (b) moves the epoch by one, so every night fetches
 *     about the same (~50 MB) and (b)'s line of time against fetched MB cannot say whether a night's
 *     cost follows its data (R^2 ~0). After (b)'s unchanged night, four nights move the epoch by 1, 2,
 *     4 and 8 at once (from day 30's epoch 29: 30, 32, 36, 44), each taken `--since` the previous
 *     one and loaded into the same database; on the large preset they fetch ~54, 87, 162 and 300 MB
 *     (trials ~36, 68, 143 and 279 MB, project summaries ~16-18 MB each). Per night: the step, fetched
 *     MB split into trials and summaries (files not shared by hard link), snapshot and load seconds and
 *     the load's peak RSS. A least-squares line of load seconds (and of snapshot seconds) against
 *     fetched MB over those nights gives the marginal cost per MB, compared with day 1's bulk rate
 *     (day 1's seconds per fetched MB: `*_marginal_cost_per_mb_vs_day1`, 1 = as cheap per MB as a
 *     first snapshot), and the intercept: what every changed night costs whatever its size, as a share
 *     of day 1's time (`*_fixed_share_of_day1`). Also the largest load peak RSS over those nights.
 *     Day 1's load and each of these nights' loads are the median of three (LOAD_REPEATS: two into
 *     copies of the database, then the database itself): one load varied by up to ~40 % between runs.
 *     The `nightly_*` line is the same for a night's snapshot and load step together, the time a
 *     scheduled run spends on that day's data, against day 1's snapshot and load step together.
 *     They, and (b)'s unchanged night, are also loaded as a scheduled `run`'s load step loads them
 *     (runLoadStep: `loadSnapshots` in a child process, timed from the call to its return, into
 *     copies of the database; median of three): the `*_load_step_*` figures. Node's start and the
 *     imports (~0.5 s here) are left out of those as they are left out of a snapshot's time: a `run`
 *     pays them once a night whatever its steps, and a `load` command once per process.
 * (d) the report step after (b): the newest snapshot's portfolio report from (b)'s database (every
 *     day in it) against the same report from a database holding that snapshot alone — time and peak
 *     RSS ratios, ~1 when a report's cost does not grow with history (reportWithHistory); and the same
 *     for two named queries over the latest_* views (`query @compliance_coverage`, `@top_open_findings`).
 *
 * Time is from the manifest's started_at to the end of publishing (the directory's rename sets its
 * ctime), so Node's start-up is left out; the snapshot runs as the real CLI in a child process and
 * the simulator in this one, with each epoch's project summaries computed before the snapshot
 * starts (the simulator's own cost, not the snapshot's). `npm run bench -- nightly-snapshot --quick` runs both at a tenth of the
 * trials (the large preset's shape, trialsPerAttack 46: ~108,000 trials) in about two minutes.
 * `--keep` leaves the work directory (every snapshot, the database, and the database as (c) found it,
 * `before-nights.duckdb`) and names it on stderr, to load (c)'s nights again by hand when comparing a change.
 * Prints one JSON line per figure.
 */
import { spawn } from 'node:child_process';
import { copyFile, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startSimulator, type RunningSimulator, type SimulatorOptions } from '../src/simulator/index.js';
import { diskUsage } from '../src/snapshot/disk-usage.js';
import type { FileKind, Manifest } from '../src/snapshot/manifest.js';
import { DuckDBInstance } from '@duckdb/node-api';
import { STORED_TABLES } from '../src/warehouse/row-sets.js';
import { buildCli, runCli, runLoadStep } from './_large-snapshot.js';

const MAIN = fileURLToPath(new URL('../src/cli/main.ts', import.meta.url));
const TOKEN = 'bench-token';
const DAYS = 30;
/** (c): how many epochs each night moves at once, after (b)'s last day. */
const NIGHT_STEPS = [1, 2, 4, 8] as const;

const LARGE: SimulatorOptions = { seed: 1, preset: 'large', token: TOKEN };
/** `--quick`: the large preset's shape (projects, assessments, jobs) with a tenth of its trials. */
const REDUCED: SimulatorOptions = { seed: 1, preset: 'large', token: TOKEN, scale: { trialsPerAttack: 46 } };

interface Day {
  dir: string;
  manifest: Manifest;
  seconds: number;
}

function emit(figure: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify(figure)}\n`);
}

const round = (value: number, digits = 3): number => Number(value.toFixed(digits));

/** One snapshot with the real CLI; `since` is the previous day's directory. */
async function snapshot(sim: RunningSimulator, out: string, since?: string): Promise<Day> {
  // The simulator computes a summary on first request (seconds on big projects) and caches it.
  for (const key of sim.projectKeys) sim.truth.summary(key);
  const args = [
    '--import',
    'tsx',
    MAIN,
    'snapshot',
    ...['--base-url', sim.url, '--org', sim.org, '--workspace', sim.workspace, '--out', out, '--quiet'],
    ...(since ? ['--since', since] : []),
  ];
  const child = spawn(process.execPath, args, {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, TZ: 'UTC', AIRT_TOKEN: TOKEN },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  if (code !== 0) throw new Error(`snapshot failed (${code}): ${stderr}`);
  const dir = stdout.trim().split('\n').at(-1) ?? '';
  const manifest = JSON.parse(await readFile(path.join(dir, 'manifest.json'), 'utf8')) as Manifest;
  const { ctimeMs } = await stat(dir);
  const end = Math.max(ctimeMs, Date.parse(manifest.finished_at));
  return { dir, manifest, seconds: (end - Date.parse(manifest.started_at)) / 1000 };
}

/**
 * Bytes of the files a day wrote itself (fetched or copied), i.e. not shared with the day before;
 * with `kind`, of that kind of file only.
 */
function ownBytes(manifest: Manifest, kind?: FileKind): number {
  return manifest.files
    .filter((f) => f.stored !== 'linked' && (kind === undefined || f.kind === kind))
    .reduce((sum, f) => sum + f.bytes, 0);
}

function trialsOf(manifest: Manifest): number {
  return manifest.files.filter((f) => f.kind === 'trials').reduce((sum, f) => sum + (f.records ?? 0), 0);
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Least-squares line y = a + b x with its R^2. */
function fitLine(xs: readonly number[], ys: readonly number[]): { a: number; b: number; r2: number } {
  const n = xs.length;
  const mx = xs.reduce((s, x) => s + x, 0) / n;
  const my = ys.reduce((s, y) => s + y, 0) / n;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < n; i++) {
    sxy += (xs[i]! - mx) * (ys[i]! - my);
    sxx += (xs[i]! - mx) ** 2;
    syy += (ys[i]! - my) ** 2;
  }
  const b = sxx === 0 ? 0 : sxy / sxx;
  return { a: my - b * mx, b, r2: sxx === 0 || syy === 0 ? 0 : (sxy * sxy) / (sxx * syy) };
}

/**
 * A least-squares line of seconds against fetched MB as figures named `<name>_…`: the line itself, its
 * slope against day 1's seconds per fetched MB (1 = as cheap per MB as a first snapshot) and its
 * intercept as a share of day 1's seconds (what every night costs whatever its size).
 */
function lineFigures(
  name: string,
  line: { a: number; b: number; r2: number },
  day1Seconds: number,
  day1FetchedMb: number,
): Record<string, number> {
  return {
    [`${name}_fit_seconds_per_fetched_mb`]: round(line.b, 4),
    [`${name}_fit_fixed_seconds`]: round(line.a),
    [`${name}_fit_r2`]: round(line.r2),
    [`${name}_marginal_cost_per_mb_vs_day1`]: round(line.b / (day1Seconds / day1FetchedMb)),
    [`${name}_fixed_share_of_day1`]: round(line.a / day1Seconds),
  };
}

/** (a) day 2 with nothing changed, on `sim` at epoch 0; returns day 1 for (b). */
async function unchangedDayTwo(sim: RunningSimulator, out: string, label: string): Promise<Day> {
  sim.setEpoch(0);
  const day1 = await snapshot(sim, out);
  const day2 = await snapshot(sim, out, day1.dir);
  const day1Disk = await diskUsage([day1.dir]);
  const bothDisk = await diskUsage([day1.dir, day2.dir]);
  const newBytes = bothDisk.bytes - day1Disk.bytes;
  emit({
    figure: 'nightly_snapshot_day2_unchanged',
    workspace: label,
    trials: trialsOf(day1.manifest),
    files: day1.manifest.files.length,
    day1_seconds: round(day1.seconds, 2),
    day2_seconds: round(day2.seconds, 2),
    time_ratio: round(day2.seconds / day1.seconds),
    target_time_ratio: 0.1,
    day1_bytes_on_disk: day1Disk.bytes,
    day2_new_bytes_on_disk: newBytes,
    bytes_ratio: round(newBytes / day1Disk.bytes, 4),
    target_bytes_ratio: 0.02,
    day2_files_linked: day2.manifest.files.filter((f) => f.stored === 'linked').length,
    day2_requests: day2.manifest.files.filter((f) => !f.reused_from).length,
  });
  // Day 2 of (a) is not part of (b)'s series, which moves the epoch from day 1 on.
  await rm(day2.dir, { recursive: true, force: true });
  return day1;
}

interface Loaded {
  seconds: number;
  dbBytes: number;
  /** The load process's peak RSS (VmHWM), null when it could not be sampled. */
  peakRssMb: number | null;
}

/** Loads a day's snapshot into the nightly database with the built CLI: seconds, file size, peak RSS. */
async function load(dir: string, db: string): Promise<Loaded> {
  const { wallMs, peakRssKb } = await runCli(['load', dir, '--db', db, '--quiet']);
  return {
    seconds: wallMs / 1000,
    dbBytes: (await stat(db)).size,
    peakRssMb: peakRssKb === null ? null : round(peakRssKb / 1024, 1),
  };
}

/**
 * A night's load as a scheduled `run` makes it (runLoadStep: loadSnapshots timed from the call to its
 * return, Node's start and imports left out), into `db`.
 */
async function loadStep(dir: string, db: string): Promise<Loaded> {
  const { ms, peakRssKb } = await runLoadStep(dir, db);
  return {
    seconds: ms / 1000,
    dbBytes: (await stat(db)).size,
    peakRssMb: peakRssKb === null ? null : round(peakRssKb / 1024, 1),
  };
}

/**
 * How many times a night that a figure rests on (day 1's load, each of (c)'s nights) is loaded each
 * way (the CLI, and as `run`'s load step): into copies of the database as it was before the night,
 * then, the last CLI load, into the database itself. The medians are quoted: one load of the same
 * night varied by up to ~40 % between runs on a 2-core machine.
 */
const LOAD_REPEATS = 3;

/** A night loaded both ways LOAD_REPEATS times (see above): the CLI's figures and the load step's. */
interface LoadedBothWays {
  cli: Loaded;
  step: Loaded;
}

/** The median seconds, the largest peak RSS and the last file size of several loads of one night. */
function medianOf(runs: readonly Loaded[]): Loaded {
  return {
    seconds: median(runs.map((r) => r.seconds)),
    dbBytes: runs.at(-1)!.dbBytes,
    peakRssMb: maxPeak(runs.map((r) => r.peakRssMb)),
  };
}

/** Loads `dir` (`how`: the CLI or the load step) into a copy of `db` as it is now, then deletes the copy. */
async function loadIntoCopy(
  how: (dir: string, db: string) => Promise<Loaded>,
  dir: string,
  db: string,
): Promise<Loaded> {
  const copy = `${db}.repeat.duckdb`;
  const exists = await stat(db).then(
    () => true,
    () => false,
  );
  if (exists) await copyFile(db, copy);
  try {
    return await how(dir, copy);
  } finally {
    for (const file of [copy, `${copy}.wal`]) await rm(file, { force: true });
  }
}

/** Loads a night LOAD_REPEATS times each way, in turn, as said above. */
async function loadRepeated(dir: string, db: string): Promise<LoadedBothWays> {
  const cli: Loaded[] = [];
  const step: Loaded[] = [];
  for (let i = 1; i < LOAD_REPEATS; i++) {
    cli.push(await loadIntoCopy(load, dir, db));
    step.push(await loadIntoCopy(loadStep, dir, db));
  }
  step.push(await loadIntoCopy(loadStep, dir, db));
  cli.push(await load(dir, db));
  return { cli: medianOf(cli), step: medianOf(step) };
}

/**
 * Rows the database stores for the shared tables (every stored_* table: all but trial rows and the
 * mappings), and the bookkeeping rows that say which snapshot and which memo holds which row sets
 * (snapshot_row_sets, summary_memo_row_sets), read from the file after a load: exact, unlike the
 * file's size (DuckDB grows it in blocks).
 */
async function storedRows(db: string): Promise<{ stored: number; mappings: number }> {
  const instance = await DuckDBInstance.create(db, { access_mode: 'READ_ONLY' });
  const conn = await instance.connect();
  const count = async (tables: readonly string[]): Promise<number> => {
    const sql = tables.map((t) => `SELECT count(*) AS n FROM "${t}"`).join(' UNION ALL ');
    const reader = await conn.runAndReadAll(`SELECT sum(n) FROM (${sql})`);
    return Number(reader.getRows()[0]?.[0] ?? 0);
  };
  try {
    return {
      stored: await count(STORED_TABLES.map((t) => t.name)),
      mappings: await count(['snapshot_row_sets', 'summary_memo_row_sets']),
    };
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
}

/** The largest of the peak RSS figures that were sampled (null when none was). */
function maxPeak(values: readonly (number | null)[]): number | null {
  const sampled = values.filter((v): v is number => v !== null);
  return sampled.length === 0 ? null : Math.max(...sampled);
}

/** Renders of one report each way in (d): one render varies by ~10 % between runs. */
const REPORT_REPEATS = 3;

/**
 * (d) What a nightly `run`'s report step costs after DAYS days: the portfolio report (every project's
 * figures and their cross-checks) of the newest snapshot, from (b)'s database holding every day, and
 * from a fresh database holding that snapshot alone. The same figures from the same rows, so the
 * ratios are what history adds (target ~1: a report reads one snapshot). Median seconds and largest
 * peak RSS of REPORT_REPEATS renders each way, the built CLI in a child process.
 */
async function reportWithHistory(newest: Day, db: string, label: string): Promise<void> {
  const work = path.dirname(db);
  const alone = path.join(work, 'newest-alone.duckdb');
  await runCli(['load', newest.dir, '--db', alone, '--quiet']);
  /** The median time and the largest peak RSS of REPORT_REPEATS runs of the CLI with `args`. */
  const timed = async (args: string[]): Promise<{ seconds: number; peakRssMb: number | null }> => {
    const runs: { seconds: number; peakRssMb: number | null }[] = [];
    for (let i = 0; i < REPORT_REPEATS; i++) {
      const { wallMs, peakRssKb } = await runCli(args);
      runs.push({
        seconds: wallMs / 1000,
        peakRssMb: peakRssKb === null ? null : round(peakRssKb / 1024, 1),
      });
    }
    return { seconds: median(runs.map((r) => r.seconds)), peakRssMb: maxPeak(runs.map((r) => r.peakRssMb)) };
  };
  /** `subject` names what was timed, e.g. { report: '…' } or { query: '@…' }. */
  const compare = async (
    figure: string,
    subject: Record<string, string>,
    args: (database: string) => string[],
  ) => {
    const single = await timed(args(alone));
    const withHistory = await timed(args(db));
    emit({
      figure,
      workspace: label,
      ...subject,
      snapshots_in_database: DAYS,
      alone_seconds: round(single.seconds, 2),
      with_history_seconds: round(withHistory.seconds, 2),
      time_ratio: round(withHistory.seconds / single.seconds),
      alone_peak_rss_mb: single.peakRssMb,
      with_history_peak_rss_mb: withHistory.peakRssMb,
      rss_ratio:
        single.peakRssMb && withHistory.peakRssMb ? round(withHistory.peakRssMb / single.peakRssMb) : null,
    });
  };
  await compare('nightly_report_with_history', { report: 'portfolio, HTML, newest snapshot' }, (database) => [
    ...['report', '--db', database, '--kind', 'portfolio', '--format', 'html'],
    ...['--out', path.join(work, 'portfolio.html')],
  ]);
  // Named queries read the latest_* views: each project's newest snapshot, whatever came before.
  for (const name of ['compliance_coverage', 'top_open_findings']) {
    await compare('nightly_query_with_history', { query: `@${name}` }, (database) => [
      ...['query', `@${name}`, '--db', database, '--format', 'csv'],
      ...['--out', path.join(work, `${name}.csv`)],
    ]);
  }
  await rm(alone, { force: true });
}

/** What (c) continues from: (b)'s last day and database, and day 1's figures to compare with. */
interface AfterThirtyDays {
  last: Day;
  lastEpoch: number;
  db: string;
  day1Seconds: number;
  day1LoadSeconds: number;
  /** Day 1's load as `run`'s load step makes it (runLoadStep). */
  day1LoadStepSeconds: number;
  day1FetchedBytes: number;
}

/** (b) DAYS days from `day1`, the epoch moving on each day, each loaded into one database. */
async function thirtyDays(
  sim: RunningSimulator,
  out: string,
  day1: Day,
  label: string,
): Promise<AfterThirtyDays> {
  const days: Day[] = [day1];
  const day1Bytes = (await diskUsage([day1.dir])).bytes;
  const day1Fetched = ownBytes(day1.manifest);
  const db = path.join(path.dirname(out), 'nightly.duckdb');
  const { cli: day1Load, step: day1Step } = await loadRepeated(day1.dir, db);
  const perDay: {
    day: number;
    seconds: number;
    fetched_mb: number;
    new_mb_on_disk: number;
    load_seconds: number;
    load_peak_rss_mb: number | null;
    db_mb: number;
    stored_rows_added: number;
    mapping_rows_added: number;
  }[] = [];
  let diskBefore = day1Bytes;
  let rowsBefore = await storedRows(db);
  for (let day = 2; day <= DAYS; day++) {
    sim.setEpoch(day - 1);
    const taken = await snapshot(sim, out, days.at(-1)!.dir);
    days.push(taken);
    const loaded = await load(taken.dir, db);
    const disk = (await diskUsage(days.map((d) => d.dir))).bytes;
    perDay.push({
      day,
      seconds: round(taken.seconds, 2),
      fetched_mb: round(ownBytes(taken.manifest) / 1e6, 2),
      new_mb_on_disk: round((disk - diskBefore) / 1e6, 2),
      load_seconds: round(loaded.seconds, 2),
      load_peak_rss_mb: loaded.peakRssMb,
      db_mb: round(loaded.dbBytes / 1e6, 1),
      ...(await storedRows(db).then((now) => {
        const added = {
          stored_rows_added: now.stored - rowsBefore.stored,
          mapping_rows_added: now.mappings - rowsBefore.mappings,
        };
        rowsBefore = now;
        return added;
      })),
    });
    diskBefore = disk;
  }
  // A night with nothing new (the epoch kept): what any night costs whatever its data (process start,
  // verify, mapping, commit). The rest of a changed night is its variable part.
  const unchanged = await snapshot(sim, out, days.at(-1)!.dir);
  const unchangedStep = await loadIntoCopy(loadStep, unchanged.dir, db);
  const unchangedLoad = await load(unchanged.dir, db);
  await rm(unchanged.dir, { recursive: true, force: true });
  const total = await diskUsage(days.map((d) => d.dir));
  const dbBytes = (await stat(db)).size;
  const meanLoad = perDay.reduce((s, d) => s + d.load_seconds, 0) / perDay.length;
  const loadLine = fitLine(
    perDay.map((d) => d.fetched_mb),
    perDay.map((d) => d.load_seconds),
  );
  const trend = fitLine(
    perDay.map((d) => d.day),
    perDay.map((d) => d.load_seconds),
  );
  const snapshotTrend = fitLine(
    perDay.map((d) => d.day),
    perDay.map((d) => d.seconds),
  );
  const storedTrend = fitLine(
    perDay.map((d) => d.day),
    perDay.map((d) => d.stored_rows_added),
  );
  const meanSeconds = perDay.reduce((s, d) => s + d.seconds, 0) / perDay.length;
  const meanFetched = perDay.reduce((s, d) => s + d.fetched_mb, 0) / perDay.length;
  const line = fitLine(
    perDay.map((d) => d.fetched_mb),
    perDay.map((d) => d.seconds),
  );
  emit({
    figure: 'nightly_snapshot_30_days',
    workspace: label,
    days: DAYS,
    day1_trials: trialsOf(day1.manifest),
    last_day_trials: trialsOf(days.at(-1)!.manifest),
    day1_bytes_on_disk: day1Bytes,
    total_bytes_on_disk: total.bytes,
    total_bytes_if_copied: total.apparentBytes,
    disk_ratio: round(total.bytes / day1Bytes),
    target_disk_ratio: 3,
    day1_seconds: round(day1.seconds, 2),
    later_days_mean_seconds: round(meanSeconds, 2),
    later_days_mean_fetched_mb: round(meanFetched, 2),
    // Proportionality: a later day's share of day 1's time against its share of day 1's data.
    later_days_time_share: round(meanSeconds / day1.seconds),
    later_days_data_share: round((meanFetched * 1e6) / day1Fetched),
    fit_seconds_per_fetched_mb: round(line.b),
    fit_fixed_seconds_per_day: round(line.a),
    fit_r2: round(line.r2),
    day1_db_bytes: day1Load.dbBytes,
    db_bytes: dbBytes,
    db_ratio: round(dbBytes / day1Load.dbBytes),
    // The issue's figure: the snapshots and the database together, against day 1's.
    disk_and_db_ratio: round((total.bytes + dbBytes) / (day1Bytes + day1Load.dbBytes)),
    target_disk_and_db_ratio: 3,
    day1_load_seconds: round(day1Load.seconds, 2),
    later_days_mean_load_seconds: round(meanLoad, 2),
    later_days_load_time_share: round(meanLoad / day1Load.seconds),
    load_fit_seconds_per_fetched_mb: round(loadLine.b),
    load_fit_fixed_seconds_per_day: round(loadLine.a),
    load_fit_r2: round(loadLine.r2),
    later_days_median_load_seconds: round(median(perDay.map((d) => d.load_seconds)), 2),
    later_days_max_load_peak_rss_mb: maxPeak(perDay.map((d) => d.load_peak_rss_mb)),
    // Growth with history: seconds a night gains per day of history (least squares over days 2..30).
    load_trend_seconds_per_day: round(trend.b, 4),
    snapshot_trend_seconds_per_day: round(snapshotTrend.b, 4),
    // Rows of the shared tables a night stores, and how many more each day of history adds to that
    // (0: a night stores what changed; > 0: it stores again what it listed before).
    later_days_mean_stored_rows_added: round(
      perDay.reduce((s, d) => s + d.stored_rows_added, 0) / perDay.length,
      1,
    ),
    stored_rows_added_trend_per_day: round(storedTrend.b, 2),
    // The bookkeeping rows a night adds (one per row set a snapshot or a memo holds): these do grow
    // with the assessments listed, by their trend per day.
    later_days_mean_mapping_rows_added: round(
      perDay.reduce((s, d) => s + d.mapping_rows_added, 0) / perDay.length,
      1,
    ),
    mapping_rows_added_trend_per_day: round(
      fitLine(
        perDay.map((d) => d.day),
        perDay.map((d) => d.mapping_rows_added),
      ).b,
      2,
    ),
    unchanged_night_seconds: round(unchanged.seconds, 2),
    unchanged_night_load_seconds: round(unchangedLoad.seconds, 2),
    // The same loads as a scheduled run's load step makes them (runLoadStep: Node's start and imports
    // left out, as a snapshot's time leaves them out; a run pays them once a night).
    day1_load_step_seconds: round(day1Step.seconds, 2),
    unchanged_night_load_step_seconds: round(unchangedStep.seconds, 2),
    unchanged_night_load_step_share_of_day1: round(unchangedStep.seconds / day1Step.seconds),
    // Cost per fetched MB beyond a night's fixed cost, a later night's against day 1's.
    later_days_variable_load_cost_per_mb_vs_day1: round(
      (meanLoad - unchangedLoad.seconds) /
        meanFetched /
        ((day1Load.seconds - unchangedLoad.seconds) / (day1Fetched / 1e6)),
    ),
    later_days_variable_snapshot_cost_per_mb_vs_day1: round(
      (meanSeconds - unchanged.seconds) /
        meanFetched /
        ((day1.seconds - unchanged.seconds) / (day1Fetched / 1e6)),
    ),
    per_day: perDay,
  });
  return {
    last: days.at(-1)!,
    lastEpoch: DAYS - 1,
    db,
    day1Seconds: day1.seconds,
    day1LoadSeconds: day1Load.seconds,
    day1LoadStepSeconds: day1Step.seconds,
    day1FetchedBytes: day1Fetched,
  };
}

/**
 * (c) nights of different sizes after (b): the epoch moves by each of NIGHT_STEPS at once, each night
 * taken `--since` the one before and loaded into (b)'s database; time against fetched MB, by line.
 */
async function nightsOfDifferentSizes(
  sim: RunningSimulator,
  out: string,
  after: AfterThirtyDays,
  label: string,
): Promise<void> {
  const nights: {
    epoch_step: number;
    epoch: number;
    fetched_mb: number;
    fetched_trial_mb: number;
    fetched_summary_mb: number;
    snapshot_seconds: number;
    load_seconds: number;
    load_step_seconds: number;
    load_peak_rss_mb: number | null;
  }[] = [];
  // The line is fitted on the unrounded figures; per_night shows them rounded.
  const fetchedMb: number[] = [];
  const snapshotSeconds: number[] = [];
  const loadSeconds: number[] = [];
  const stepSeconds: number[] = [];
  let previous = after.last;
  let epoch = after.lastEpoch;
  // `--keep`: the database as (c) found it, so its nights can be loaded again by hand (A/B of a change).
  if (keep) await copyFile(after.db, path.join(root, 'before-nights.duckdb'));
  for (const step of NIGHT_STEPS) {
    epoch += step;
    sim.setEpoch(epoch);
    const taken = await snapshot(sim, out, previous.dir);
    const { cli: loaded, step: stepped } = await loadRepeated(taken.dir, after.db);
    previous = taken;
    fetchedMb.push(ownBytes(taken.manifest) / 1e6);
    snapshotSeconds.push(taken.seconds);
    loadSeconds.push(loaded.seconds);
    stepSeconds.push(stepped.seconds);
    nights.push({
      epoch_step: step,
      epoch,
      fetched_mb: round(ownBytes(taken.manifest) / 1e6, 2),
      fetched_trial_mb: round(ownBytes(taken.manifest, 'trials') / 1e6, 2),
      fetched_summary_mb: round(ownBytes(taken.manifest, 'project_summary') / 1e6, 2),
      snapshot_seconds: round(taken.seconds, 2),
      load_seconds: round(loaded.seconds, 2),
      load_step_seconds: round(stepped.seconds, 2),
      load_peak_rss_mb: loaded.peakRssMb,
    });
  }
  const day1FetchedMb = after.day1FetchedBytes / 1e6;
  const loadLine = fitLine(fetchedMb, loadSeconds);
  const snapshotLine = fitLine(fetchedMb, snapshotSeconds);
  const stepLine = fitLine(fetchedMb, stepSeconds);
  emit({
    figure: 'nightly_sizes',
    workspace: label,
    from_epoch: after.lastEpoch,
    day1_fetched_mb: round(day1FetchedMb, 2),
    day1_seconds: round(after.day1Seconds, 2),
    day1_load_seconds: round(after.day1LoadSeconds, 2),
    // A changed night's cost per further MB against day 1's bulk rate (day 1's seconds per fetched MB),
    // and what every changed night costs whatever its size, against day 1's whole time.
    ...lineFigures('load', loadLine, after.day1LoadSeconds, day1FetchedMb),
    // The same as a scheduled run's load step makes the loads (runLoadStep), against day 1's load step.
    day1_load_step_seconds: round(after.day1LoadStepSeconds, 2),
    ...lineFigures('load_step', stepLine, after.day1LoadStepSeconds, day1FetchedMb),
    ...lineFigures('snapshot', snapshotLine, after.day1Seconds, day1FetchedMb),
    // The night as a scheduled run spends it, its snapshot then its load step: the issue's "per-day
    // time" of a simulated day, against day 1's snapshot and load step together.
    ...lineFigures(
      'nightly',
      fitLine(
        fetchedMb,
        snapshotSeconds.map((seconds, i) => seconds + stepSeconds[i]!),
      ),
      after.day1Seconds + after.day1LoadStepSeconds,
      day1FetchedMb,
    ),
    max_load_peak_rss_mb: maxPeak(nights.map((n) => n.load_peak_rss_mb)),
    per_night: nights,
  });
}

buildCli();
const root = await mkdtemp(path.join(tmpdir(), 'airt-bench-nightly-'));
const quick = process.argv.includes('--quick');
/** `--keep`: leave the work directory (snapshots, databases) in place and name it on stderr. */
const keep = process.argv.includes('--keep');
const sim = await startSimulator(quick ? REDUCED : LARGE);
try {
  const label = quick ? 'large preset shape, a tenth of its trials (--quick)' : 'large preset';
  const out = path.join(root, 'snapshots');
  const day1 = await unchangedDayTwo(sim, out, label);
  const after = await thirtyDays(sim, out, day1, label);
  await reportWithHistory(after.last, after.db, label);
  await nightsOfDifferentSizes(sim, out, after, label);
} finally {
  await sim.close();
  if (keep) console.error(`kept the snapshots and databases in ${root}`);
  else await rm(root, { recursive: true, force: true });
}
