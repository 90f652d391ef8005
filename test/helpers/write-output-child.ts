/**
 * Child process for the output-file interruption test: writes ~16 MB tagged with argv[3] to argv[2]
 * through the shared helper, printing one line when it starts so the parent can time its SIGKILL.
 */
import { writeOutputFile } from '../../src/output-file.js';

const [target, tag] = process.argv.slice(2);
if (target === undefined || tag === undefined) throw new Error('usage: write-output-child TARGET TAG');
const size = 16 << 20;
const body = Buffer.alloc(size, 'x');
body.write(tag, 0);
body.write(`${tag}\n`, size - tag.length - 1);
process.stdout.write('start\n');
await writeOutputFile(target, body);
