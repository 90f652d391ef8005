/** Runs in every test file: clean up what test/helpers/temp-dirs.ts created. */
import { afterAll } from 'vitest';
import { removeTempDirs } from './helpers/temp-dirs.js';

afterAll(removeTempDirs);
