import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { z } from 'zod';

/**
 * Static checks of the Dockerfile, .dockerignore and docker-compose.yml. CI has no Docker engine;
 * these guard what was verified by building and running the image by hand (docs/operations.md).
 */
const root = resolve(import.meta.dirname, '../..');
const read = (name: string) => readFileSync(join(root, name), 'utf8');

interface Stage {
  readonly from: string;
  readonly instructions: readonly { readonly op: string; readonly args: string }[];
}

/** Dockerfile instructions (continuation lines joined, comments dropped), grouped by stage. */
function stages(text: string): Stage[] {
  const joined = text.replace(/\\\n/g, ' ');
  const result: { from: string; instructions: { op: string; args: string }[] }[] = [];
  for (const line of joined.split('\n')) {
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    const match = /^([A-Za-z]+)\s+(.*)$/.exec(trimmed);
    if (match === null) throw new Error(`unparsed Dockerfile line: ${trimmed}`);
    const op = (match[1] ?? '').toUpperCase();
    const args = match[2] ?? '';
    if (op === 'FROM') result.push({ from: args, instructions: [] });
    else {
      const stage = result.at(-1);
      if (stage === undefined) throw new Error(`${op} before FROM`);
      stage.instructions.push({ op, args });
    }
  }
  return result;
}

const args = (stage: Stage, op: string) => stage.instructions.filter((i) => i.op === op).map((i) => i.args);

describe('Dockerfile', () => {
  const all = stages(read('Dockerfile'));
  const runtime = all.at(-1) as Stage;

  it('runs the gateway under an init as PID 1, as the unprivileged node user', () => {
    const entrypoint = z.array(z.string()).parse(JSON.parse(args(runtime, 'ENTRYPOINT').at(-1) ?? 'null'));
    // node as PID 1 leaves the orphans of background commands as zombies.
    expect(entrypoint.slice(0, 2)).toEqual(['tini', '--']);
    expect(entrypoint.slice(2)).toEqual(['node', 'bin/hermes-gateway']);
    expect(args(runtime, 'RUN').join(' ')).toMatch(/apt-get install[^&]*\btini\b/);
    expect(args(runtime, 'USER').at(-1)).toBe('node');
    expect(JSON.parse(args(runtime, 'CMD').at(-1) ?? 'null')).toEqual(['start']);
  });

  it('makes /data the node user’s before declaring it a volume', () => {
    const ops = runtime.instructions;
    const chown = ops.findIndex((i) => i.op === 'RUN' && /chown\s+node:node\s+\/data/.test(i.args));
    const volume = ops.findIndex((i) => i.op === 'VOLUME' && i.args.includes('/data'));
    expect(chown).toBeGreaterThanOrEqual(0);
    expect(volume).toBeGreaterThan(chown);
    expect(args(runtime, 'ENV').join(' ')).toMatch(/HERMES_HOME=\/data/);
  });

  it('keeps the compiler toolchain out of the runtime image', () => {
    expect(all.length).toBeGreaterThanOrEqual(2);
    const runtimeRuns = args(runtime, 'RUN').join(' ');
    const runtimePackages = runtimeRuns.split(/\s+/);
    for (const tool of ['g++', 'make', 'python3']) expect(runtimePackages).not.toContain(tool);
    const build = all
      .slice(0, -1)
      .flatMap((stage) => args(stage, 'RUN'))
      .join(' ');
    expect(build.split(/\s+/)).toContain('g++');
    // The build stage compiles dist/ (npm ci runs prepare) and keeps only the runtime dependencies.
    expect(build).toMatch(/npm ci\b/);
    expect(build).toMatch(/test -f dist\/build-info\.json/);
    expect(build).toMatch(/npm prune --omit=dev/);
    const fromBuild = args(runtime, 'COPY').filter((a) => a.startsWith('--from='));
    expect(fromBuild.some((a) => a.includes('node_modules'))).toBe(true);
    expect(fromBuild.some((a) => a.includes('/app/dist'))).toBe(true);
  });

  it('copies only paths that exist and that .dockerignore lets through', () => {
    const ignored = read('.dockerignore')
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '' && !line.startsWith('#'));
    const sources = args(runtime, 'COPY')
      .filter((a) => !a.startsWith('--from='))
      .flatMap((a) => a.split(/\s+/).slice(0, -1));
    expect(sources.length).toBeGreaterThan(0);
    for (const source of sources) {
      expect(existsSync(join(root, source)), source).toBe(true);
      expect(ignored, source).not.toContain(source);
    }
    // Never in the build context: secrets, local state, the host's native builds.
    for (const entry of ['.env', '.git', 'node_modules', 'dist', '*.db']) expect(ignored).toContain(entry);
  });
});

describe('docker-compose.yml', () => {
  // `docker compose config` validates the file where a Docker client with compose is installed; this
  // machine has none, so the shape that matters is checked here.
  const envFile = z.array(z.object({ path: z.string(), required: z.boolean() }).strict());
  const service = z.object({
    build: z.string().optional(),
    image: z.string().optional(),
    pull_policy: z.string().optional(),
    command: z.array(z.string()).optional(),
    env_file: envFile.optional(),
    environment: z.record(z.string(), z.string()).optional(),
    volumes: z.array(z.string()).optional(),
    depends_on: z.record(z.string(), z.object({ condition: z.string() })).optional(),
    restart: z.string().optional(),
  });
  const compose = z
    .object({ services: z.record(z.string(), service), volumes: z.record(z.string(), z.unknown()) })
    .parse(parse(read('docker-compose.yml')));

  it('runs the gateway and scalable workers from one image, on one Redis and one HERMES_HOME', () => {
    const { gateway, worker, redis } = compose.services;
    expect(gateway?.build).toBe('.');
    // Built once (by the gateway service) and run by both: the worker has no build of its own.
    expect(worker?.build).toBeUndefined();
    expect(worker?.image).toBe(gateway?.image);
    expect(worker?.pull_policy).toBe('never');
    expect(worker?.depends_on?.['gateway']).toBeDefined();
    expect(gateway?.command).toEqual(['start']);
    expect(worker?.command).toEqual(['worker']);
    expect(gateway?.environment?.['REDIS_URL']).toBe('redis://redis:6379');
    expect(worker?.environment?.['REDIS_URL']).toBe('redis://redis:6379');
    // Shared state on PostgreSQL: the workers need no disk of the gateway's.
    for (const svc of [gateway, worker]) {
      expect(svc?.environment?.['DATABASE_URL']).toMatch(/^postgres:\/\/hermes:.*@postgres:5432\/hermes$/);
      expect(svc?.depends_on?.['postgres']).toBeDefined();
    }
    expect(gateway?.volumes).toContain('hermes-home:/data');
    expect(worker?.volumes).toContain('hermes-home:/data');
    expect(redis?.command).toEqual(expect.arrayContaining(['--appendonly', 'yes']));
    expect(Object.keys(compose.volumes)).toEqual(expect.arrayContaining(['hermes-home', 'redis-data']));
  });

  it('starts without a .env file, and refuses (instead of a restart loop) to bind 0.0.0.0 without a key', () => {
    const { gateway, worker } = compose.services;
    for (const svc of [gateway, worker]) expect(svc?.env_file).toEqual([{ path: '.env', required: false }]);
    expect(gateway?.environment?.['HERMES_HTTP_HOST']).toBe('0.0.0.0');
    // `${VAR:?message}`: compose itself stops with the message when the key is missing.
    expect(gateway?.environment?.['API_SERVER_KEY']).toMatch(/^\$\{API_SERVER_KEY:\?[^}]+\}$/);
  });

  it('says how to create .env and how to edit config.yaml inside the volume', () => {
    const text = read('docker-compose.yml');
    expect(text).toMatch(/> \.env/);
    expect(text).toContain('docker compose cp ./config.yaml gateway:/data/config.yaml');
  });
});
