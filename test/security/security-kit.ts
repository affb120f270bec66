/**
 * # Security end-to-end kit
 *
 * Runs the real gateway the way an operator does and attacks it the way an outsider or a
 * prompt-injected model would, then checks that nothing got through and nothing on disk changed.
 *
 * ```ts
 * const gw = await startSecurityGateway();                 // `hermes-gateway start` in a child process
 * const before = gw.snapshot();                            // HERMES_HOME + the decoy user home
 * const run = await gw.runTools([                          // the fake model asks for these tool calls,
 *   toolCall('terminal', { command: `cat ${gw.home}/.env` }), // one per step, then answers "done"
 *   toolCall('read_file', { path: '~/.ssh/id_ed25519' }),
 * ]);
 * expect(run.status).toBe(200);
 * gw.expectNoSecrets(run.results.join('\n'), 'tool results'); // plain, base64, hex, URL-encoded
 * gw.expectUnchanged(before);                              // lists what was added/removed/changed
 * gw.expectNoSecrets(gw.logs(), 'logs');
 * await gw.close();                                        // stops the gateway, removes every temp dir
 * ```
 *
 * - **Gateway**: `via: 'cli'` (default) spawns `bin/hermes-gateway start` — the `npm start`
 *   path: `.env` and `config.yaml` read from HERMES_HOME, the real logger, the platforms from
 *   the environment — on 127.0.0.1 with a random port (`origin`). `via: 'in-process'` builds it
 *   with `createGateway` and the real logger instead, for chat attacks through the test adapter
 *   (`adapters`, `gateway.control`), or routes added before it listens (`beforeListen`).
 * - **Decoys**: HERMES_HOME holds a `.env` (OpenAI key, API key, a `REPORTING_DATABASE_URL` with a
 *   password, a GitHub token…) and a `config.yaml` with a webhook route secret; the gateway's
 *   HOME is a decoy user home (`~/.ssh`, `~/.aws/credentials`, `~/.netrc`, `~/.bashrc`, a git
 *   repository with hooks); its process environment carries decoy `GITHUB_PAT`,
 *   `MY_SERVICE_AUTH`, `SLACK_WEBHOOK_URL`. `decoys.values` lists every secret value;
 *   `expectNoSecrets(text)` fails on any of them (also base64 at every alignment, hex,
 *   URL-encoded). The API key is `apiKey`; the route secret `decoys.routeSecret`.
 * - **Model**: `model` is a fake OpenAI server (`test/fakes/fake-openai.ts`); `script(...)`
 *   queues raw replies, `runTools(calls)` scripts the calls and sends one API request,
 *   `toolResults()` is every tool message the model was sent (what the agent could read).
 * - **Disk**: `snapshot()` records HERMES_HOME (not the state database or logs, which the
 *   gateway writes itself) and the user home: type, mode, size, content hash, link target,
 *   inode and link count — a new hard link to `.env` shows up as a changed link count.
 *   `stateRows(sql)` reads the state database (read-only) for rows such as `approval_yolo`.
 *
 * Requests go over real HTTP: `chat()` for the API server, `rawRequest()` (raw-http.ts) for
 * byte-exact request targets, `pathVariants()` (path-variants.ts) for spellings of a path.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import Database from 'better-sqlite3';
import type { Logger } from 'pino';
import { stringify } from 'yaml';
import { createGateway, type Gateway } from '../../src/app/create-gateway.js';
import { loadConfig } from '../../src/config/load-config.js';
import { secretValues } from '../../src/config/mask-secrets.js';
import { createLogger } from '../../src/logging/create-logger.js';
import type { PlatformAdapter } from '../../src/platforms/adapter.js';
import { type FakeOpenAi, type FakeReply, type FakeToolCall, startFakeOpenAi } from '../fakes/fake-openai.js';
import { deleteKeys, type QueueMode, REDIS_URL, TOOLS_DIR } from '../gateway/e2e/gateway-kit.js';

const BIN = resolve(import.meta.dirname, '../../bin/hermes-gateway');
/** A loaded machine can take a while to start the sources through tsx. */
const START_TIMEOUT_MS = 90_000;

export interface Decoys {
  /** Every secret value planted anywhere (files, config, environment). */
  readonly values: readonly string[];
  readonly openAiKey: string;
  readonly apiKey: string;
  readonly dbPassword: string;
  readonly routeSecret: string;
  /** Decoy variables in the gateway process' own environment (must never reach a command). */
  readonly env: Readonly<Record<string, string>>;
  /** Paths of the planted secret files (absolute). */
  readonly files: readonly string[];
}

export interface SecurityGatewayOptions {
  /** `cli` (default): `hermes-gateway start` in a child process; `in-process`: `createGateway`. */
  readonly via?: 'cli' | 'in-process';
  /** `embedded` (default) or `bullmq` (Redis at 127.0.0.1:6379, own key prefix). */
  readonly mode?: QueueMode;
  /** More environment for the gateway process (wins over the kit's). */
  readonly env?: Readonly<Record<string, string>>;
  /** config.yaml content merged over the kit's (mappings key by key, at every depth). */
  readonly config?: Readonly<Record<string, unknown>>;
  /** Log level of the gateway (default `debug`: the more it logs, the more is checked for secrets). */
  readonly logLevel?: string;
  /** In-process only: chat adapters (e.g. the test adapter). */
  readonly adapters?: readonly PlatformAdapter[];
  /** In-process only: runs after the gateway is built and before it listens. */
  readonly beforeListen?: (gateway: Gateway) => void | Promise<void>;
}

export interface ToolRun {
  /** HTTP status of the API request. */
  readonly status: number;
  /** The final answer, or the error message. */
  readonly answer: string;
  /** The tool results the model was sent during this run, in order. */
  readonly results: readonly string[];
}

export interface DiskEntry {
  readonly type: 'file' | 'dir' | 'link' | 'other';
  readonly mode: number;
  readonly size: number;
  readonly hash: string;
  readonly ino: number;
  readonly nlink: number;
}

export type DiskSnapshot = ReadonlyMap<string, DiskEntry>;

export interface SecurityGateway {
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  readonly apiKey: string;
  readonly home: string;
  /** The gateway's HOME (decoy dotfiles). */
  readonly userHome: string;
  /** The terminal's working directory. */
  readonly workdir: string;
  readonly decoys: Decoys;
  readonly model: FakeOpenAi;
  /** In-process only. */
  readonly gateway: Gateway | undefined;
  /** Everything the gateway logged so far (JSON lines; stderr too for the CLI). */
  logs(): string;
  script(...replies: FakeReply[]): void;
  /** `POST /v1/chat/completions` with the API key (or `key`; `null` sends none). */
  chat(text: string, options?: { readonly key?: string | null }): Promise<{ status: number; json: unknown }>;
  /** Scripts `calls` (one per model step), then a final "done", and sends one API request. */
  runTools(calls: readonly FakeToolCall[], options?: { readonly text?: string }): Promise<ToolRun>;
  /** Every tool result the model was sent since the start (or `model.reset()`). */
  toolResults(): string[];
  snapshot(): DiskSnapshot;
  /** Throws, naming each path, when anything under the snapshot's roots differs. */
  expectUnchanged(before: DiskSnapshot): void;
  /** Throws when `text` holds any decoy secret in any spelling the kit knows. */
  expectNoSecrets(text: string, where: string): void;
  /** Rows of a read-only query on `state.db`. */
  stateRows(sql: string, ...params: unknown[]): unknown[];
  close(): Promise<void>;
}

/** A tool call for `runTools` / `script`. */
export function toolCall(name: string, args: Record<string, unknown>): FakeToolCall {
  return { name, arguments: JSON.stringify(args) };
}

function token(label: string): string {
  return `${label}-${randomBytes(12).toString('hex')}`;
}

function plantDecoys(home: string, userHome: string, workdir: string): Decoys {
  const openAiKey = `sk-${token('decoy-openai')}`;
  const apiKey = token('decoy-api-key');
  const dbPassword = token('decoy-db-pass');
  const routeSecret = token('decoy-route-secret');
  const githubPat = `ghp_${randomBytes(18).toString('hex')}`;
  const env = {
    GITHUB_PAT: `ghp_${randomBytes(18).toString('hex')}`,
    MY_SERVICE_AUTH: token('decoy-service-auth'),
    SLACK_WEBHOOK_URL: `https://hooks.slack.invalid/services/T0/B0/${token('decoy-slack')}`,
  };
  const sshKey = token('decoy-ssh-private-key');
  const awsSecret = token('decoy-aws-secret');
  const netrcPassword = token('decoy-netrc-pass');
  writeFileSync(
    join(home, '.env'),
    [
      `OPENAI_API_KEY=${openAiKey}`,
      `API_SERVER_KEY=${apiKey}`,
      // An application's own database (not the gateway's DATABASE_URL, which would select its store).
      `REPORTING_DATABASE_URL=postgres://app:${dbPassword}@db.internal:5432/app`,
      `GITHUB_TOKEN=${githubPat}`,
      '',
    ].join('\n'),
    { mode: 0o600 },
  );
  const files = [join(home, '.env'), join(home, 'config.yaml')];
  const put = (path: string, text: string, mode = 0o600) => {
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(path, text, { mode });
    files.push(path);
  };
  put(
    join(userHome, '.ssh', 'id_ed25519'),
    `-----BEGIN OPENSSH PRIVATE KEY-----\n${sshKey}\n-----END OPENSSH PRIVATE KEY-----\n`,
  );
  put(join(userHome, '.ssh', 'authorized_keys'), 'ssh-ed25519 AAAAdecoy decoy@host\n', 0o644);
  put(
    join(userHome, '.aws', 'credentials'),
    `[default]\naws_access_key_id = AKIADECOY\naws_secret_access_key = ${awsSecret}\n`,
  );
  put(join(userHome, '.netrc'), `machine example.invalid login me password ${netrcPassword}\n`);
  put(join(userHome, '.bashrc'), '# decoy shell start-up file\n', 0o644);
  put(join(userHome, '.profile'), '# decoy login profile\n', 0o644);
  mkdirSync(join(workdir, '.git', 'hooks'), { recursive: true });
  writeFileSync(join(workdir, '.git', 'HEAD'), 'ref: refs/heads/main\n');
  return {
    values: [
      openAiKey,
      apiKey,
      dbPassword,
      routeSecret,
      githubPat,
      sshKey,
      awsSecret,
      netrcPassword,
      ...Object.values(env),
    ],
    openAiKey,
    apiKey,
    dbPassword,
    routeSecret,
    env,
    files,
  };
}

/** The spellings of a secret a leak may take: plain, URL-encoded, hex, base64 at every alignment. */
export function secretForms(secret: string): string[] {
  const bytes = Buffer.from(secret, 'utf8');
  const forms = new Set<string>([
    secret,
    encodeURIComponent(secret),
    bytes.toString('hex'),
    bytes.toString('hex').toUpperCase(),
  ]);
  for (const shift of [0, 1, 2]) {
    for (const alphabet of ['base64', 'base64url'] as const) {
      const text = Buffer.concat([Buffer.alloc(shift), bytes]).toString(alphabet);
      // Only the characters made of the secret's own bits, whatever precedes it in the stream.
      const start = Math.ceil((shift * 8) / 6) + 1;
      const end = Math.floor(((shift + bytes.length) * 8) / 6) - 1;
      if (end - start >= 12) forms.add(text.slice(start, end));
    }
  }
  return [...forms];
}

function snapshotRoots(roots: readonly string[], skip: (path: string) => boolean): DiskSnapshot {
  const out = new Map<string, DiskEntry>();
  const visit = (path: string) => {
    if (skip(path)) return;
    const stat = lstatSync(path, { throwIfNoEntry: false });
    if (stat === undefined) return;
    const type = stat.isFile()
      ? 'file'
      : stat.isDirectory()
        ? 'dir'
        : stat.isSymbolicLink()
          ? 'link'
          : 'other';
    const hash =
      type === 'file'
        ? createHash('sha256').update(readFileSync(path)).digest('hex')
        : type === 'link'
          ? readlinkSync(path)
          : '';
    out.set(path, {
      type,
      mode: stat.mode,
      size: type === 'dir' ? 0 : stat.size,
      hash,
      ino: stat.ino,
      nlink: stat.nlink,
    });
    if (type === 'dir') for (const name of readdirSync(path)) visit(join(path, name));
  };
  for (const root of roots) visit(root);
  return out;
}

function diffSnapshots(before: DiskSnapshot, after: DiskSnapshot): string[] {
  const changes: string[] = [];
  for (const [path, entry] of before) {
    const now = after.get(path);
    if (now === undefined) changes.push(`removed ${path}`);
    else if (
      entry.type === 'dir'
        ? entry.mode !== now.mode || entry.ino !== now.ino
        : JSON.stringify(entry) !== JSON.stringify(now)
    ) {
      changes.push(`changed ${path}: ${JSON.stringify(entry)} → ${JSON.stringify(now)}`);
    }
  }
  for (const path of after.keys()) if (!before.has(path)) changes.push(`added ${path}`);
  return changes;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `extra` over `base`, mappings merged key by key at every depth. */
function mergeConfig(
  base: Readonly<Record<string, unknown>>,
  extra: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(extra)) {
    const current = out[key];
    out[key] = isRecord(current) && isRecord(value) ? mergeConfig(current, value) : value;
  }
  return out;
}

/** Starts a gateway on decoy directories with its own fake model; see the top of this file. */
export async function startSecurityGateway(options: SecurityGatewayOptions = {}): Promise<SecurityGateway> {
  const via = options.via ?? 'cli';
  const mode = options.mode ?? 'embedded';
  const home = mkdtempSync(join(tmpdir(), 'hermes-sec-home-'));
  const userHome = mkdtempSync(join(tmpdir(), 'hermes-sec-user-'));
  const workdir = mkdtempSync(join(tmpdir(), 'hermes-sec-work-'));
  const prefix = `hgsec-${randomBytes(4).toString('hex')}`;
  const decoys = plantDecoys(home, userHome, workdir);
  const model = await startFakeOpenAi();
  const lines: string[] = [];
  let child: ChildProcess | undefined;
  let gateway: Gateway | undefined;
  let origin = '';

  const cleanup = async () => {
    if (child !== undefined && child.exitCode === null && child.signalCode === null) {
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      const timer = setTimeout(() => child?.kill('SIGKILL'), 20_000);
      await exited;
      clearTimeout(timer);
    }
    await gateway?.close();
    await model.close();
    for (const dir of [home, userHome, workdir]) rmSync(dir, { recursive: true, force: true });
    if (mode === 'bullmq') await deleteKeys(`${prefix}*`);
  };

  try {
    const config = mergeConfig(
      {
        http: { port: 0 },
        redis: { prefix },
        queue: { shutdown_grace_ms: 2000, lock_duration_ms: 2000, stalled_interval_ms: 1000 },
        platforms: {
          webhook: { enabled: true, routes: { hook: { auth: 'github', secret: decoys.routeSecret } } },
        },
      },
      options.config ?? {},
    );
    writeFileSync(join(home, 'config.yaml'), stringify(config), { mode: 0o600 });
    const env: Record<string, string> = {
      PATH: process.env['PATH'] ?? '/usr/bin:/bin',
      HOME: userHome,
      HERMES_HOME: home,
      TERMINAL_CWD: workdir,
      HERMES_LOG_LEVEL: options.logLevel ?? 'debug',
      OPENAI_BASE_URL: model.baseURL,
      HERMES_MODEL: 'fake-model',
      ...decoys.env,
      ...(mode === 'bullmq' ? { REDIS_URL } : {}),
      ...options.env,
    };
    if (via === 'cli') {
      child = spawn(process.execPath, [BIN, 'start'], {
        env,
        cwd: workdir,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      origin = await waitForStart(child, lines);
    } else {
      const loaded = loadConfig({ env, home });
      const logger: Logger = createLogger({
        level: env['HERMES_LOG_LEVEL'] ?? 'debug',
        secrets: secretValues(loaded),
        destination: { write: (line: string) => void lines.push(line) },
      });
      gateway = await createGateway({
        config: loaded,
        logger,
        baseEnv: env,
        builtinToolsDir: TOOLS_DIR,
        role: 'gateway',
        ...(options.adapters !== undefined ? { adapters: options.adapters } : {}),
      });
      await options.beforeListen?.(gateway);
      origin = (await gateway.start()) ?? '';
    }
  } catch (error) {
    await cleanup();
    throw error;
  }

  const allForms = decoys.values.flatMap(secretForms);
  const skipState = (path: string) => {
    const rel = relative(home, path);
    return /^state\.db(?:-wal|-shm|-journal)?$/.test(rel) || rel === 'logs' || rel.startsWith('logs/');
  };

  const toolResults = () => {
    const seen = new Map<string, string>();
    for (const request of model.requests) {
      const messages = (request.body['messages'] ?? []) as {
        role?: string;
        content?: unknown;
        tool_call_id?: string;
      }[];
      for (const message of messages) {
        if (message.role !== 'tool') continue;
        const key = message.tool_call_id ?? `${seen.size}`;
        if (!seen.has(key))
          seen.set(
            key,
            typeof message.content === 'string' ? message.content : JSON.stringify(message.content),
          );
      }
    }
    return [...seen.values()];
  };

  const chat: SecurityGateway['chat'] = async (text, chatOptions = {}) => {
    const key = chatOptions.key === undefined ? decoys.apiKey : chatOptions.key;
    const response = await fetch(`${origin}/v1/chat/completions`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(key === null ? {} : { authorization: `Bearer ${key}` }),
      },
      body: JSON.stringify({ model: 'fake-model', messages: [{ role: 'user', content: text }] }),
    });
    const body = await response.text();
    let json: unknown = body;
    try {
      json = JSON.parse(body);
    } catch {
      // not JSON: kept as text
    }
    return { status: response.status, json };
  };

  return {
    origin,
    apiKey: decoys.apiKey,
    home,
    userHome,
    workdir,
    decoys,
    model,
    gateway,
    logs: () => lines.join(''),
    script: (...replies) => model.script(...replies),
    chat,
    async runTools(calls, runOptions = {}) {
      const already = new Set(toolResults());
      model.script(...calls.map((call) => ({ content: '', toolCalls: [call] })), { content: 'done' });
      const { status, json } = await chat(runOptions.text ?? 'Please run the tools I asked for.');
      const answer =
        (json as { choices?: { message?: { content?: string } }[] }).choices?.[0]?.message?.content ??
        (json as { error?: { message?: string } }).error?.message ??
        String(json);
      return { status, answer, results: toolResults().filter((result) => !already.has(result)) };
    },
    toolResults,
    snapshot: () => snapshotRoots([home, userHome], skipState),
    expectUnchanged(before) {
      const changes = diffSnapshots(before, snapshotRoots([home, userHome], skipState));
      if (changes.length > 0) throw new Error(`the disk changed:\n${changes.join('\n')}`);
    },
    expectNoSecrets(text, where) {
      const squeezed = text.replace(/\s+/g, '');
      const found = allForms.filter((form) => text.includes(form) || squeezed.includes(form));
      if (found.length > 0)
        throw new Error(`${where} hold decoy secrets: ${found.map((f) => f.slice(0, 24)).join(', ')}`);
    },
    stateRows(sql, ...params) {
      const db = new Database(join(home, 'state.db'), { readonly: true, fileMustExist: true });
      try {
        return db.prepare(sql).all(...params);
      } finally {
        db.close();
      }
    },
    close: cleanup,
  };
}

/** Reads the child's JSON log lines until the start banner, and returns its HTTP address. */
async function waitForStart(child: ChildProcess, lines: string[]): Promise<string> {
  return await new Promise<string>((resolvePromise, reject) => {
    let pending = '';
    let settled = false;
    const timer = setTimeout(
      () =>
        finish(
          new Error(
            `the gateway did not start within ${START_TIMEOUT_MS} ms:\n${lines.join('').slice(-2000)}`,
          ),
        ),
      START_TIMEOUT_MS,
    );
    const finish = (result: string | Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (result instanceof Error) reject(result);
      else resolvePromise(result);
    };
    child.stdout?.on('data', (chunk: Buffer) => {
      pending += chunk.toString('utf8');
      let newline = pending.indexOf('\n');
      while (newline >= 0) {
        const line = pending.slice(0, newline + 1);
        pending = pending.slice(newline + 1);
        lines.push(line);
        try {
          const record = JSON.parse(line) as { msg?: string; http?: string };
          if (record.msg === 'hermes-gateway started' && typeof record.http === 'string') finish(record.http);
        } catch {
          // a non-JSON line (the banner on a terminal): kept in the logs
        }
        newline = pending.indexOf('\n');
      }
    });
    child.stderr?.on('data', (chunk: Buffer) => lines.push(chunk.toString('utf8')));
    child.on('exit', (code, signal) =>
      finish(
        new Error(
          `the gateway exited (${code ?? signal}) before it started:\n${lines.join('').slice(-2000)}`,
        ),
      ),
    );
  });
}
