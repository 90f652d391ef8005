/**
 * `airt-report demo`: the whole pipeline against the built-in simulator, with no setup.
 *
 * ```
 *  simulator (loopback, ephemeral port, seed 1)
 *    │ 1 config + evaluation jobs through the API client: what the workspace holds
 *    │ 2 run #1: snapshot → verify → load → reports → gates → bundle
 *    │ 3 an operator triages a finding (PATCH, journaled)
 *    │ 4 the service moves on (epoch 1: new assessments, a regression, changed jobs)
 *    │ 5 run #2: same pipeline, now with a diff against run #1 and the triage edit
 *    ▼
 *  stdout: paths of the reports, diff, gate report and bundle
 * ```
 * The demo owns its output directory: it clears it only when the directory carries the demo's marker
 * file, so pointing --out at a directory of the user's never deletes anything.
 */
import { existsSync } from 'node:fs';
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createApiClient } from '../api/client.js';
import { CliError, EXIT, UsageError } from '../errors.js';
import { runConfigFromObject } from '../pipeline/run-config.js';
import { runPipeline, type PipelineResult } from '../pipeline/run-pipeline.js';
import { resolveChromiumPath } from '../report/pdf.js';
import { startSimulator } from '../simulator/index.js';
import { triageFinding } from '../triage/triage-finding.js';

const MARKER = '.airt-demo';

export interface DemoOptions {
  /** Directory for everything the demo writes. */
  out: string;
}

export interface DemoEffects {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: Readonly<Record<string, string | undefined>>;
  signal?: AbortSignal;
}

export interface DemoResult {
  runs: PipelineResult[];
  out: string;
}

export async function runDemo(options: DemoOptions, effects: DemoEffects): Promise<DemoResult> {
  const out = path.resolve(options.out);
  await prepareOutDir(out);
  const say = (line: string): void => effects.stderr(`demo: ${line}\n`);

  const sim = await startSimulator({ seed: 1 });
  try {
    say(`simulated service at ${sim.url} (org ${sim.org}, workspace ${sim.workspace})`);
    const client = createApiClient({ baseUrl: sim.url, token: sim.token });
    try {
      const config = await client.getConfig();
      const jobs = await client.listAllEvaluations(sim.org, sim.workspace);
      const projectIds = new Set(jobs.items.map((job) => job.project_id));
      say(
        `service api ${config.value.api_version}, app ${config.value.app_version}; ` +
          `${jobs.items.length} evaluation jobs across ${projectIds.size} projects in ${jobs.pages} pages`,
      );
    } finally {
      await client.close();
    }

    const firstProject = sim.projectKeys[0];
    if (!firstProject) throw new CliError('The simulator served no project.');
    const pdfAvailable = hasChromium(effects.env);
    if (!pdfAvailable) say('Chromium not found: PDF reports are skipped (apt-get install chromium).');
    // The operator's triage journal starts empty; run #2's snapshot picks up the edit made below.
    const journal = path.join(out, 'triage', 'journal.jsonl');
    await mkdir(path.dirname(journal), { recursive: true });
    await writeFile(journal, '');
    const runConfig = runConfigFromObject(
      {
        connection: { base_url: sim.url, org: sim.org, workspace: sim.workspace },
        snapshot: { out_dir: 'snapshots', concurrency: 8, triage_journal: journal },
        database: 'airt.duckdb',
        output_dir: 'runs',
        // Every kind and format once; PDF for one project only, since printing is the slow part.
        reports: [
          { kind: 'executive', formats: ['md', 'html'] },
          ...(pdfAvailable ? [{ kind: 'executive', projects: [firstProject], formats: ['pdf'] }] : []),
          { kind: 'compliance', projects: [firstProject], formats: ['md', 'html'] },
          { kind: 'portfolio', formats: ['html'] },
        ],
        retention: { keep_last: 5 },
        gates: [
          'new_critical_findings <= 0',
          'overall_asr <= 0.6',
          'framework.owasp_llm.failing_categories <= 8',
        ],
        on_unknown_gate: 'warn',
        bundle: { enabled: true },
      },
      out,
    );
    // The pipeline reads the token from its environment, as a scheduled job would.
    const pipelineEffects = {
      stderr: effects.stderr,
      env: { AIRT_TOKEN: sim.token },
      quiet: true,
      ...(effects.signal ? { signal: effects.signal } : {}),
    };

    say('run #1: snapshot → verify → load → reports → gates → bundle');
    const first = await runPipeline(runConfig, pipelineEffects);
    expectUsable(first, 'run #1');

    // Triage the project's top finding so the edit shows in run #2's diff and reports.
    const findingId = sim.truth.summary(firstProject).top_findings[0]?.attack_run_id;
    if (findingId) {
      const triageClient = createApiClient({ baseUrl: sim.url, token: sim.token });
      try {
        const result = await triageFinding({
          client: triageClient,
          target: { org: sim.org, workspace: sim.workspace },
          change: {
            findingId,
            request: { finding_status: 'false_positive', notes: 'Demo: benign, reproduced only in staging.' },
          },
          journalPath: journal,
          cwd: out,
        });
        say(`operator triaged finding ${findingId} as ${result.finding?.finding_status ?? 'unknown'}`);
      } finally {
        await triageClient.close();
      }
    }

    sim.setEpoch(1);
    say('the service moved on (new assessments, a regression, changed evaluation jobs)');
    say('run #2: the same pipeline, now with a diff against run #1');
    const second = await runPipeline(runConfig, pipelineEffects);
    expectUsable(second, 'run #2');

    printOutputs(second, out, effects);
    return { runs: [first, second], out };
  } finally {
    await sim.close();
  }
}

/** Exit 4 (a gate tripped) is part of what the demo shows; anything else but 0 is a failure. */
function expectUsable(result: PipelineResult, label: string): void {
  if (result.exitCode !== EXIT.ok && result.exitCode !== EXIT.gate) {
    throw new CliError(
      `${label} ended with exit code ${result.exitCode} (${result.summary.outcome}); see ${result.summaryPath ?? 'stderr'}`,
    );
  }
}

function printOutputs(result: PipelineResult, out: string, effects: DemoEffects): void {
  const rel = (file: string): string => path.relative(process.cwd(), path.resolve(out, file)) || '.';
  const lines: string[] = ['', 'airt-report demo: what run #2 wrote'];
  // Chart files sit beside each Markdown report; list the documents a reader opens.
  for (const file of result.summary.outputs) {
    if (!file.path.split(path.sep).includes('charts')) lines.push(`  ${rel(file.path)}`);
  }
  if (result.summaryPath) lines.push(`  ${rel(result.summaryPath)}`);
  const database = rel(result.summary.paths.database);
  lines.push(`  ${database}  (DuckDB warehouse with both snapshots)`);
  lines.push(
    '',
    'Next:',
    `  npx airt-report query @asr_by_category --db ${database}`,
    `  npx airt-report serve --db ${database}   (browse it in a local browser view)`,
  );
  effects.stdout(`${lines.join('\n')}\n`);
}

function hasChromium(env: Readonly<Record<string, string | undefined>>): boolean {
  try {
    return existsSync(resolveChromiumPath(env));
  } catch {
    return false;
  }
}

async function prepareOutDir(out: string): Promise<void> {
  if (existsSync(out)) {
    const entries = await readdir(out);
    if (entries.length > 0 && !entries.includes(MARKER)) {
      throw new UsageError(
        `${out} is not empty and was not made by the demo; pass --out with a new or empty directory.`,
      );
    }
    await rm(out, { recursive: true, force: true });
  }
  await mkdir(out, { recursive: true });
  await writeFile(path.join(out, MARKER), 'Made by `airt-report demo`; cleared by the next demo run.\n');
}
