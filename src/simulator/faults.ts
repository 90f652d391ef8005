/**
 * Fault injection: `429=0.1,502=0.05,504=0.02,latency=20ms,cut=0.01,retry_after=1`.
 *
 * Deterministic per seed (docs/CONTRACTS.md): the decision for a request is a hash of (seed, method,
 * path+query, n-th time that exact request was seen), so a retry eventually succeeds and concurrency
 * does not change which request fails.
 */
import { InvalidOptionError } from '../errors.js';
import { hashString, mix, unit } from './prng.js';

/** Faults the simulator injects: status rates, latency, cut bodies, Retry-After. */
export interface FaultSpec {
  /** Probability of 429 rate_limited with Retry-After. */
  rate429: number;
  /** Probability of 502 (half of them an HTML proxy page instead of the envelope). */
  rate502: number;
  /** Probability of 504 gateway_timeout_error. */
  rate504: number;
  /** Probability that a response is cut: full Content-Length, part of the body, then a reset. */
  rateCut: number;
  /** Delay before every response, in milliseconds. */
  latencyMs: number;
  /** Seconds announced in Retry-After on 429. */
  retryAfterS: number;
}

const NO_FAULTS: FaultSpec = {
  rate429: 0,
  rate502: 0,
  rate504: 0,
  rateCut: 0,
  latencyMs: 0,
  retryAfterS: 1,
};

export type FaultKind = '429' | '502' | '504' | 'cut';

export interface FaultDecision {
  kind: FaultKind | null;
  /** For 502: answer with an HTML proxy page instead of the JSON envelope. */
  html: boolean;
  /** For cut: the fraction of the body written before the connection is destroyed (0.1–0.9). */
  cutFraction: number;
}

const RATE_KEYS: Record<string, keyof FaultSpec> = {
  '429': 'rate429',
  '502': 'rate502',
  '504': 'rate504',
  cut: 'rateCut',
};

/** Parses a fault spec; throws an InvalidOptionError (option `faults`) that names the bad part and shows the expected form. */
export function parseFaultSpec(text: string): FaultSpec {
  const spec: FaultSpec = { ...NO_FAULTS };
  const example = 'expected e.g. 429=0.1,502=0.05,504=0.02,latency=20ms,cut=0.01,retry_after=1';
  for (const part of text
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const [key, value, ...rest] = part.split('=');
    if (key === undefined || value === undefined || rest.length > 0) {
      throw new InvalidOptionError(
        'faults',
        (name) => `Bad ${name('faults')} entry ${JSON.stringify(part)}: ${example}.`,
      );
    }
    const rateKey = RATE_KEYS[key.trim()];
    if (rateKey) {
      const rate = Number(value);
      if (value.trim() === '' || !Number.isFinite(rate) || rate < 0 || rate > 1) {
        throw new InvalidOptionError(
          'faults',
          (name) =>
            `Bad ${name('faults')} rate ${JSON.stringify(part)}: the rate must be a number from 0 to 1.`,
        );
      }
      spec[rateKey] = rate;
    } else if (key.trim() === 'latency') {
      const match = /^(\d+(?:\.\d+)?)(ms|s)?$/.exec(value.trim());
      if (!match?.[1])
        throw new InvalidOptionError(
          'faults',
          (name) =>
            `Bad ${name('faults')} latency ${JSON.stringify(part)}: use e.g. latency=20ms or latency=1s.`,
        );
      spec.latencyMs = Number(match[1]) * (match[2] === 's' ? 1000 : 1);
    } else if (key.trim() === 'retry_after') {
      const seconds = Number(value);
      if (!Number.isInteger(seconds) || seconds < 0) {
        throw new InvalidOptionError(
          'faults',
          (name) =>
            `Bad ${name('faults')} retry_after ${JSON.stringify(part)}: use whole seconds, e.g. retry_after=1.`,
        );
      }
      spec.retryAfterS = seconds;
    } else {
      throw new InvalidOptionError(
        'faults',
        (name) => `Unknown ${name('faults')} kind ${JSON.stringify(key)}: ${example}.`,
      );
    }
  }
  const total = spec.rate429 + spec.rate502 + spec.rate504 + spec.rateCut;
  if (total > 1)
    throw new InvalidOptionError(
      'faults',
      (name) => `The ${name('faults')} rates add up to ${total}; their sum must be at most 1.`,
    );
  return spec;
}

export function resolveFaults(faults: string | FaultSpec | undefined): FaultSpec {
  if (faults === undefined) return { ...NO_FAULTS };
  if (typeof faults === 'string') return parseFaultSpec(faults);
  return { ...NO_FAULTS, ...faults };
}

/** The fault for the n-th (0-based) occurrence of `method pathAndQuery`. */
export function decideFault(
  spec: FaultSpec,
  seed: number,
  method: string,
  pathAndQuery: string,
  n: number,
): FaultDecision {
  const h = mix(hashString(`${method} ${pathAndQuery}`, seed), n);
  const u = unit(h);
  const detail = unit(mix(h, 0x2545f491));
  let edge = spec.rate429;
  let kind: FaultKind | null = null;
  if (u < edge) kind = '429';
  else if (u < (edge += spec.rate502)) kind = '502';
  else if (u < (edge += spec.rate504)) kind = '504';
  else if (u < (edge += spec.rateCut)) kind = 'cut';
  return { kind, html: detail < 0.5, cutFraction: 0.1 + 0.8 * detail };
}

/** Counts how often each exact request was seen, for the n in `decideFault`. */
export class RequestCounter {
  private readonly seen = new Map<string, number>();

  next(key: string): number {
    const n = this.seen.get(key) ?? 0;
    this.seen.set(key, n + 1);
    return n;
  }
}
