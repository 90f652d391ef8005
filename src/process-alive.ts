/**
 * Whether a process of this host still runs: signal 0 checks without sending anything. EPERM means it
 * runs under another user. Used to tell a killed writer's leftovers (temp files, lock notes) from a
 * live one's.
 */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
