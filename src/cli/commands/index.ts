/**
 * Every CLI command, in the order `--help` lists them. One line per command; the command's own file
 * holds its flags and its call into the library.
 */
import type { CommandDefinition } from '../command.js';

export const commands: CommandDefinition<unknown>[] = [];
