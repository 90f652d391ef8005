/**
 * Deterministic identifiers: UUIDs and hex span/trace ids derived from hash(seed, entity path), so an
 * entity keeps its id no matter which request produces it or in what order.
 */
import { hashString } from './prng.js';

function hex32(value: number): string {
  return (value >>> 0).toString(16).padStart(8, '0');
}

/** `count` × 8 hex digits from independent hashes of the same key. */
export function hexFor(seed: number, key: string, count: number): string {
  let out = '';
  for (let i = 0; i < count; i++) out += hex32(hashString(`${key}#${i}`, seed));
  return out;
}

/** A version-4-shaped UUID for the entity `key` (e.g. `assessment/p0/a3`). */
export function uuidFor(seed: number, key: string): string {
  const h = hexFor(seed, key, 4);
  const variant = ((parseInt(h.charAt(16), 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

const UUID_PATTERN = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/** Accepts any 8-4-4-4-12 hex id, like the service's UUID path/query parameters. */
export function isUuid(text: string): boolean {
  return UUID_PATTERN.test(text);
}
