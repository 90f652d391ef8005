/**
 * bench/simulator: how fast the simulator serves, and how much memory it needs for a big workspace.
 *
 * (a) throughput — small preset, no faults, concurrency 8, bounded loops: the project summary
 *     endpoint and the trials endpoint (limit=5000). Requests/s and MB/s of response bodies.
 * (b) memory — large preset (>= 1,000,000 trial spans): every trial list fetched (limit=5000,
 *     concurrency 8) while /proc/<pid>/status VmHWM of the simulator process is sampled; target
 *     < 500 MB. Also its wall time and MB/s.
 *
 * The simulator runs as a child process (the real CLI: `airt-report simulator --port 0`), so the
 * figures are its own and the client's CPU is not counted in its memory. One JSON line per figure.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

const MAIN = fileURLToPath(new URL('../src/cli/main.ts', import.meta.url));
const TOKEN = 'bench-token';
const CONCURRENCY = 8;
const HEADERS = { authorization: `Bearer ${TOKEN}` };

interface Simulator {
  child: ChildProcess;
  url: string;
  projects: string[];
}

function startChild(preset: 'small' | 'large'): Promise<Simulator> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', MAIN, 'simulator', '--preset', preset, '--port', '0', '--token', TOKEN],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout?.setEncoding('utf8');
    child.stdout?.on('data', (chunk: string) => {
      out += chunk;
      // The command prints shell lines: `export AIRT_BASE_URL=…` and a `# projects: …` comment.
      const url = /^export AIRT_BASE_URL=(\S+)$/m.exec(out)?.[1];
      const projects = /^# projects: (.*)$/m.exec(out)?.[1];
      if (url && projects !== undefined) resolve({ child, url, projects: projects.split(', ') });
    });
    child.once('exit', (code) => reject(new Error(`simulator exited early with ${code}`)));
  });
}

async function stopChild(sim: Simulator): Promise<number | null> {
  const exited = new Promise<number | null>((resolve) => sim.child.once('exit', (code) => resolve(code)));
  sim.child.kill('SIGTERM');
  return exited;
}

async function highWaterMarkKb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/^VmHWM:\s+(\d+)\s+kB/m.exec(status)?.[1] ?? 0);
}

/** Reads a body chunk by chunk (never holding it), counting bytes and `"trial_index":` keys. */
async function drain(response: Response): Promise<{ bytes: number; trials: number }> {
  const decoder = new TextDecoder();
  let bytes = 0;
  let trials = 0;
  let tail = '';
  for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
    bytes += chunk.byteLength;
    const text = tail + decoder.decode(chunk, { stream: true });
    trials += text.split('"trial_index":').length - 1;
    tail = text.slice(-15);
    // A key split across the tail boundary is counted once: drop it from the tail if complete there.
    if (tail.includes('"trial_index":')) tail = '';
  }
  return { bytes, trials };
}

/** Runs `tasks` with `CONCURRENCY` workers; returns wall seconds. */
async function pool(tasks: (() => Promise<void>)[]): Promise<number> {
  const started = performance.now();
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < tasks.length) await (tasks[next++] as () => Promise<void>)();
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return (performance.now() - started) / 1000;
}

interface SummaryShape {
  assessments: { id: string; total_trials: number }[];
}

async function assessmentsOf(sim: Simulator): Promise<{ id: string; trials: number }[]> {
  const out: { id: string; trials: number }[] = [];
  for (const key of sim.projects) {
    const response = await fetch(
      `${sim.url}/api/v1/org/acme/ws/main/airt/projects/${encodeURIComponent(key)}/summary`,
      { headers: HEADERS },
    );
    const summary = (await response.json()) as SummaryShape;
    for (const a of summary.assessments) out.push({ id: a.id, trials: a.total_trials });
  }
  return out;
}

const round = (x: number, d = 1): number => Math.round(x * 10 ** d) / 10 ** d;

async function throughput(): Promise<void> {
  const sim = await startChild('small');
  try {
    const assessments = await assessmentsOf(sim); // also warms the summary cache
    let bytes = 0;
    const summaryTasks = Array.from({ length: 400 }, (_, i) => async () => {
      const response = await fetch(
        `${sim.url}/api/v1/org/acme/ws/main/airt/projects/${sim.projects[i % sim.projects.length]}/summary`,
        { headers: HEADERS },
      );
      bytes += (await drain(response)).bytes;
    });
    let seconds = await pool(summaryTasks);
    console.log(
      JSON.stringify({
        figure: 'summary_throughput',
        preset: 'small',
        requests: summaryTasks.length,
        concurrency: CONCURRENCY,
        requests_per_s: round(summaryTasks.length / seconds),
        mb_per_s: round(bytes / 1e6 / seconds),
        avg_body_kb: round(bytes / summaryTasks.length / 1024),
      }),
    );

    bytes = 0;
    let trials = 0;
    const trialTasks = Array.from({ length: 200 }, (_, i) => async () => {
      const a = assessments[i % assessments.length] as { id: string };
      const response = await fetch(
        `${sim.url}/api/v1/org/acme/ws/main/airt/assessments/${a.id}/traces/trials?limit=5000`,
        { headers: HEADERS },
      );
      const drained = await drain(response);
      bytes += drained.bytes;
      trials += drained.trials;
    });
    seconds = await pool(trialTasks);
    console.log(
      JSON.stringify({
        figure: 'trials_throughput',
        preset: 'small',
        requests: trialTasks.length,
        concurrency: CONCURRENCY,
        requests_per_s: round(trialTasks.length / seconds),
        mb_per_s: round(bytes / 1e6 / seconds),
        trials_per_s: Math.round(trials / seconds),
      }),
    );
  } finally {
    await stopChild(sim);
  }
}

async function largeWorkspace(): Promise<void> {
  const sim = await startChild('large');
  const pid = sim.child.pid as number;
  let peakKb = 0;
  const sampler = setInterval(() => {
    highWaterMarkKb(pid).then(
      (kb) => (peakKb = Math.max(peakKb, kb)),
      () => undefined,
    );
  }, 200);
  try {
    const started = performance.now();
    const assessments = await assessmentsOf(sim);
    let bytes = 0;
    let trials = 0;
    const tasks = assessments.map((a) => async () => {
      const response = await fetch(
        `${sim.url}/api/v1/org/acme/ws/main/airt/assessments/${a.id}/traces/trials?limit=5000`,
        { headers: HEADERS },
      );
      const drained = await drain(response);
      bytes += drained.bytes;
      trials += drained.trials;
    });
    await pool(tasks);
    const seconds = (performance.now() - started) / 1000;
    peakKb = Math.max(peakKb, await highWaterMarkKb(pid));
    const expected = assessments.reduce((s, a) => s + a.trials, 0);
    const code = await stopChild(sim);
    console.log(
      JSON.stringify({
        figure: 'large_workspace_memory',
        preset: 'large',
        projects: sim.projects.length,
        trial_lists: assessments.length,
        trial_spans: trials,
        trial_spans_expected: expected,
        gb_served: round(bytes / 1e9, 2),
        wall_s: round(seconds),
        mb_per_s: round(bytes / 1e6 / seconds),
        peak_rss_mb: round(peakKb / 1024),
        target_mb: 500,
        clean_exit: code === 0,
      }),
    );
  } finally {
    clearInterval(sampler);
    if (sim.child.exitCode === null) sim.child.kill('SIGTERM');
  }
}

await throughput();
await largeWorkspace();
