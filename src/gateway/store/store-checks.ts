import { HermesError } from '../../errors/hermes-error.js';

/*
 * Input checks shared by store implementations (the PostgreSQL repos and the newer SQLite repos;
 * the older SQLite repos still keep copies of the same rules). Every failure is `store_failed`.
 */

export const MAX_STORE_ID_LENGTH = 512;

/** A non-empty string of at most `max` characters. */
export function checkId(what: string, value: string, max = MAX_STORE_ID_LENGTH): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > max) {
    throw new HermesError('store_failed', `${what} must be a non-empty string of at most ${max} characters`);
  }
  return value;
}

export function optionalId(what: string, value: string | undefined): string | undefined {
  return value === undefined ? undefined : checkId(what, value);
}

/** Titles: control characters become spaces, trimmed, at most 200 characters; blank is none. */
export function checkTitle(title: string): string | null {
  const trimmed = title.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
  if (trimmed === '') return null;
  return trimmed.length > 200 ? trimmed.slice(0, 200) : trimmed;
}

export function emptyToNull(value: string | null): string | null {
  if (value === null) return null;
  const trimmed = value.trim();
  return trimmed === '' ? null : trimmed;
}

/** Toolset override names: non-empty, at most 100 characters, duplicates dropped. */
export function checkToolsets(names: readonly string[]): string[] {
  const out: string[] = [];
  for (const name of names) {
    if (typeof name !== 'string' || name.length === 0 || name.length > 100) {
      throw new HermesError(
        'store_failed',
        'toolset overrides must be non-empty names of at most 100 characters',
      );
    }
    if (!out.includes(name)) out.push(name);
  }
  return out;
}

const PAIRING_CODE = /^[A-Z0-9]{4,32}$/;

/** Upper-cased pairing code, or undefined when it cannot be one. */
export function pairingCodeOf(code: string): string | undefined {
  const normalised = code.trim().toUpperCase();
  return PAIRING_CODE.test(normalised) ? normalised : undefined;
}

export function checkPairingCode(code: string): string {
  const normalised = pairingCodeOf(code);
  if (normalised === undefined)
    throw new HermesError('store_failed', 'a pairing code must be 4-32 letters or digits');
  return normalised;
}

export function checkTtl(ttlMs: number): number {
  if (!Number.isFinite(ttlMs) || ttlMs <= 0) {
    throw new HermesError('store_failed', 'dedupe TTL must be a positive number of milliseconds');
  }
  return Math.trunc(ttlMs);
}

/** JSON text of a parked turn's state. */
export function parkedStateJson(state: unknown): string {
  let json: string | undefined;
  try {
    json = JSON.stringify(state);
  } catch (error) {
    throw new HermesError('store_failed', 'parked turn state is not JSON-serialisable', { cause: error });
  }
  if (json === undefined) throw new HermesError('store_failed', 'parked turn state is not JSON-serialisable');
  return json;
}

export const MAX_CHOICES = 16;
export const MAX_CHOICE_LENGTH = 2000;

export function checkChoices(choices: readonly string[]): string[] {
  if (
    !Array.isArray(choices) ||
    choices.length > MAX_CHOICES ||
    choices.some((choice) => typeof choice !== 'string' || choice.length > MAX_CHOICE_LENGTH)
  ) {
    throw new HermesError(
      'store_failed',
      `prompt choices must be at most ${MAX_CHOICES} strings of at most ${MAX_CHOICE_LENGTH} characters`,
    );
  }
  return [...choices];
}
