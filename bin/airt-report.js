#!/usr/bin/env node
// Entry point of the installed CLI: the compiled TypeScript lives in dist/ (built by `npm run build`,
// which `npm ci` runs through the prepare script). runCli is the same entry `tsx src/cli/main.ts`
// uses (EPIPE guard included), so the installed binary and the tests behave alike.
import process from 'node:process';
import { runCli } from '../dist/cli/main.js';

await runCli(process.argv.slice(2));
