/**
 * Every CLI command, in the order `--help` lists them. One line per command; the command's own file
 * holds its flags and its call into the library.
 */
import type { CommandDefinition } from '../command.js';
import { configCommand } from './config.js';
import { bundleCommand } from './bundle.js';
import { creditsCommand } from './credits.js';
import { demoCommand } from './demo.js';
import { diffCommand } from './diff.js';
import { exportCommand } from './export.js';
import { gatesCommand } from './gates.js';
import { loadCommand } from './load.js';
import { queryCommand } from './query.js';
import { reportCommand } from './report.js';
import { runCommand } from './run.js';
import { serveCommand } from './serve.js';
import { simulatorCommand } from './simulator.js';
import { snapshotCommand } from './snapshot.js';
import { triageCommand } from './triage.js';
import { verifyCommand } from './verify.js';

export const commands: CommandDefinition<unknown>[] = [
  configCommand,
  snapshotCommand,
  verifyCommand,
  loadCommand,
  queryCommand,
  exportCommand,
  serveCommand,
  reportCommand,
  triageCommand,
  creditsCommand,
  simulatorCommand,
  runCommand,
  diffCommand,
  gatesCommand,
  bundleCommand,
  demoCommand,
];
