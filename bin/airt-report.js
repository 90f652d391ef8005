#!/usr/bin/env node
// Entry point of the installed CLI: the compiled TypeScript lives in dist/ (built by `npm run build`,
// which `npm ci` runs through the prepare script).
import process from 'node:process';
import { main } from '../dist/cli/main.js';

process.exitCode = await main(process.argv.slice(2));
