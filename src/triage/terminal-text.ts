/**
 * Notes, ids echoed back and error details are attacker-influenced text (a finding's notes can quote a
 * jailbreak prompt): everything triage prints that came from a file or the service passes through one
 * of these two helpers. They live in the shared text-safety leaf module, so triage, the diff, the
 * report and `query` neutralize exactly the same characters.
 */
export { terminalSafe, terminalSafeJson } from '../text-safety.js';
