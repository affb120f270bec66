/**
 * The fake gateway (WebSocket, JSON encoding): HELLO → IDENTIFY → READY + GUILD_CREATE, heartbeats
 * and their ACKs, RESUME replaying what a session missed, INVALID_SESSION, RECONNECT, Discord's close
 * codes (4001–4014), and faults a test switches on (a zombie connection, an abrupt drop).
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { GatewayCloseCodes, GatewayIntentBits, GatewayOpcodes } from 'discord.js';
import { type RawData, type WebSocket, WebSocketServer } from 'ws';
import type { EventClock, Stamp } from './event-clock.js';
import { isRecord } from './is-record.js';

export interface ConnectionRecord extends Stamp {
  readonly id: number;
  /** `/gateway` (from GET /gateway/bot) or `/resume` (READY's resume_gateway_url). */
  readonly path: string;
  readonly query: Record<string, string>;
  heartbeats: number;
  /** Sequence number the last heartbeat carried. */
  lastHeartbeatSeq: number | null;
  closedAt: number | undefined;
  closeCode: number | undefined;
  closedBy: 'client' | 'fake' | undefined;
}

export interface IdentifyRecord extends Stamp {
  readonly connectionId: number;
  readonly token: string;
  readonly intents: number;
  readonly shard: readonly number[] | undefined;
  readonly properties: unknown;
  readonly largeThreshold: number | undefined;
  readonly presence: unknown;
  /** READY sent; otherwise the close code the fake answered with. */
  readonly accepted: boolean;
  readonly closeCode: number | undefined;
}

export interface ResumeRecord extends Stamp {
  readonly connectionId: number;
  readonly sessionId: string;
  readonly fromSeq: number;
  readonly accepted: boolean;
  /** Dispatches sent again before RESUMED. */
  readonly replayed: number;
}

export interface DispatchRecord extends Stamp {
  readonly sessionId: string;
  readonly t: string;
  readonly s: number;
  readonly d: unknown;
  /** Went out on a live connection (not lost to a zombie, not waiting for a resume). */
  delivered: boolean;
}

export interface GatewaySession {
  readonly id: string;
  readonly intents: number;
  readonly shard: readonly number[];
  seq: number;
  /** False once invalidated (INVALID_SESSION, a 1000/1001 close by the client). */
  live: boolean;
  readonly buffer: DispatchRecord[];
  connection: Connection | undefined;
}

interface Connection {
  readonly record: ConnectionRecord;
  readonly ws: WebSocket;
  readonly socket: Duplex;
  session: GatewaySession | undefined;
  /** Heartbeats are not acked and dispatches are lost (a half-dead connection). */
  zombie: boolean;
}

export interface GatewayConfig {
  /** The bot token currently valid (a test may revoke it). */
  readonly token: () => string;
  readonly heartbeatIntervalMs: number;
  /** Privileged intents enabled for the app (developer portal); others close with 4014. */
  readonly privilegedIntents: number;
  /** Dispatch records kept, in the log and each resume buffer (default: all logged, 2,000 buffered). */
  readonly keepDispatches?: number;
  readonly clock: EventClock;
  /** READY's payload for a new session (the caller knows the world). */
  readonly ready: (session: GatewaySession, resumeUrl: string) => unknown;
  /** GUILD_CREATE payloads sent after READY, and members chunks (op 8) answered. */
  readonly guildCreates: (intents: number) => unknown[];
  readonly membersChunk: (request: Record<string, unknown>) => unknown;
  readonly resumeUrl: () => string;
}

const PRIVILEGED =
  GatewayIntentBits.GuildMembers | GatewayIntentBits.GuildPresences | GatewayIntentBits.MessageContent;
const KNOWN_INTENTS = Object.values(GatewayIntentBits).reduce<number>(
  (all, bit) => (typeof bit === 'number' ? all | bit : all),
  0,
);
const TRACE = ['["fake-discord-gateway",{"micros":0}]'];
const BUFFER_LIMIT = 2_000;

export class FakeGateway {
  readonly connections: ConnectionRecord[] = [];
  readonly identifies: IdentifyRecord[] = [];
  readonly resumes: ResumeRecord[] = [];
  readonly dispatches: DispatchRecord[] = [];
  /** Frames the client sent that the fake only records (presence, voice state …). */
  readonly frames: { readonly op: number; readonly d: unknown; readonly connectionId: number }[] = [];
  readonly sessions = new Map<string, GatewaySession>();
  readonly #open = new Set<Connection>();
  readonly #wss = new WebSocketServer({ noServer: true });
  /** WebSocket upgrades answered 503 (Discord's gateway down). */
  refusedConnections = 0;
  #refuseConnections = 0;
  #refuseResumes = 0;
  #nextConnection = 0;

  constructor(private readonly config: GatewayConfig) {}

  handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void {
    const url = new URL(request.url ?? '/', 'http://fake');
    if (url.pathname !== '/gateway' && url.pathname !== '/resume') {
      socket.destroy();
      return;
    }
    if (this.#refuseConnections > 0) {
      this.#refuseConnections -= 1;
      this.refusedConnections += 1;
      socket.end('HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
      this.config.clock.changed();
      return;
    }
    this.#wss.handleUpgrade(request, socket, head, (ws) => this.#accept(ws, socket, url));
  }

  #accept(ws: WebSocket, socket: Duplex, url: URL): void {
    this.#nextConnection += 1;
    const record: ConnectionRecord = {
      ...this.config.clock.stamp(),
      id: this.#nextConnection,
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      heartbeats: 0,
      lastHeartbeatSeq: null,
      closedAt: undefined,
      closeCode: undefined,
      closedBy: undefined,
    };
    const connection: Connection = { record, ws, socket, session: undefined, zombie: false };
    this.connections.push(record);
    this.#open.add(connection);
    ws.on('message', (data) => this.#onFrame(connection, data));
    ws.on('close', (code) => this.#onClose(connection, code));
    ws.on('error', () => undefined);
    this.#send(connection, {
      op: GatewayOpcodes.Hello,
      d: { heartbeat_interval: this.config.heartbeatIntervalMs, _trace: TRACE },
      s: null,
      t: null,
    });
    if (record.query['v'] !== '10')
      this.#close(connection, GatewayCloseCodes.InvalidAPIVersion, 'Invalid API version.');
    else if (record.query['encoding'] !== undefined && record.query['encoding'] !== 'json') {
      this.#close(connection, GatewayCloseCodes.DecodeError, 'Error while decoding payload.');
    }
    this.config.clock.changed();
  }

  #onFrame(connection: Connection, data: RawData): void {
    let frame: unknown;
    try {
      frame = JSON.parse(data.toString());
    } catch {
      this.#close(connection, GatewayCloseCodes.DecodeError, 'Error while decoding payload.');
      return;
    }
    const op = isRecord(frame) ? frame['op'] : undefined;
    const d = isRecord(frame) ? frame['d'] : undefined;
    if (op === GatewayOpcodes.Heartbeat) {
      connection.record.heartbeats += 1;
      connection.record.lastHeartbeatSeq = typeof d === 'number' ? d : null;
      if (!connection.zombie) this.#send(connection, { op: GatewayOpcodes.HeartbeatAck });
      this.config.clock.changed();
      return;
    }
    // A zombie connection loses what the client sends too (heartbeats are only counted, for tests).
    if (connection.zombie) return;
    if (op === GatewayOpcodes.Identify) {
      this.#identify(connection, d);
      return;
    }
    if (op === GatewayOpcodes.Resume) {
      this.#resume(connection, d);
      return;
    }
    if (typeof op !== 'number' || ![3, 4, 8, 31].includes(op)) {
      this.#close(connection, GatewayCloseCodes.UnknownOpcode, 'Unknown opcode.');
      return;
    }
    if (connection.session === undefined) {
      this.#close(connection, GatewayCloseCodes.NotAuthenticated, 'Not authenticated.');
      return;
    }
    this.frames.push({ op, d, connectionId: connection.record.id });
    if (op === GatewayOpcodes.RequestGuildMembers && isRecord(d)) {
      this.#sendDispatch(connection.session, 'GUILD_MEMBERS_CHUNK', this.config.membersChunk(d));
    }
    this.config.clock.changed();
  }

  #identify(connection: Connection, d: unknown): void {
    const intents = isRecord(d) ? d['intents'] : undefined;
    const token = isRecord(d) && typeof d['token'] === 'string' ? d['token'] : undefined;
    if (!isRecord(d) || token === undefined || !isRecord(d['properties'])) {
      this.#close(connection, GatewayCloseCodes.DecodeError, 'Error while decoding payload.');
      return;
    }
    const rawShard = d['shard'];
    const shard =
      Array.isArray(rawShard) && rawShard.every((n): n is number => typeof n === 'number')
        ? rawShard
        : undefined;
    const validIntents =
      typeof intents === 'number' &&
      Number.isInteger(intents) &&
      intents >= 0 &&
      (intents & ~KNOWN_INTENTS) === 0
        ? intents
        : undefined;
    let closeCode: number | undefined;
    let reason = '';
    if (connection.session !== undefined)
      [closeCode, reason] = [GatewayCloseCodes.AlreadyAuthenticated, 'Already authenticated.'];
    else if (token.replace(/^Bot\s+/i, '') !== this.config.token())
      [closeCode, reason] = [GatewayCloseCodes.AuthenticationFailed, 'Authentication failed.'];
    else if (validIntents === undefined) {
      [closeCode, reason] = [GatewayCloseCodes.InvalidIntents, 'Invalid intent(s).'];
    } else if ((validIntents & PRIVILEGED & ~this.config.privilegedIntents) !== 0) {
      [closeCode, reason] = [GatewayCloseCodes.DisallowedIntents, 'Disallowed intent(s).'];
    } else if (
      shard !== undefined &&
      (shard.length !== 2 || (shard[1] ?? 0) < 1 || (shard[0] ?? 0) >= (shard[1] ?? 0))
    ) {
      [closeCode, reason] = [GatewayCloseCodes.InvalidShard, 'Invalid shard.'];
    }
    this.identifies.push({
      ...this.config.clock.stamp(),
      connectionId: connection.record.id,
      token,
      intents: typeof intents === 'number' ? intents : Number.NaN,
      shard,
      properties: d['properties'],
      largeThreshold: typeof d['large_threshold'] === 'number' ? d['large_threshold'] : undefined,
      presence: d['presence'],
      accepted: closeCode === undefined,
      closeCode,
    });
    if (closeCode !== undefined || validIntents === undefined) {
      this.#close(connection, closeCode ?? GatewayCloseCodes.InvalidIntents, reason);
      return;
    }
    const session: GatewaySession = {
      id: randomBytes(16).toString('hex'),
      intents: validIntents,
      shard: shard ?? [0, 1],
      seq: 0,
      live: true,
      buffer: [],
      connection,
    };
    this.sessions.set(session.id, session);
    connection.session = session;
    this.#sendDispatch(session, 'READY', this.config.ready(session, this.config.resumeUrl()));
    for (const guild of this.config.guildCreates(session.intents))
      this.#sendDispatch(session, 'GUILD_CREATE', guild);
  }

  #resume(connection: Connection, d: unknown): void {
    const token = isRecord(d) && typeof d['token'] === 'string' ? d['token'] : '';
    const sessionId = isRecord(d) && typeof d['session_id'] === 'string' ? d['session_id'] : '';
    const fromSeq = isRecord(d) && typeof d['seq'] === 'number' ? d['seq'] : -1;
    if (token.replace(/^Bot\s+/i, '') !== this.config.token()) {
      this.#close(connection, GatewayCloseCodes.AuthenticationFailed, 'Authentication failed.');
      return;
    }
    const session = this.sessions.get(sessionId);
    const oldest = session?.buffer[0]?.s ?? 1;
    const refused = this.#refuseResumes > 0;
    const ok = session?.live === true && !refused && fromSeq <= session.seq && fromSeq >= oldest - 1;
    if (refused) this.#refuseResumes -= 1;
    if (!ok) {
      if (session !== undefined) session.live = false;
      this.resumes.push({
        ...this.config.clock.stamp(),
        connectionId: connection.record.id,
        sessionId,
        fromSeq,
        accepted: false,
        replayed: 0,
      });
      this.#send(connection, { op: GatewayOpcodes.InvalidSession, d: false });
      this.config.clock.changed();
      return;
    }
    const previous = session.connection;
    if (previous !== undefined && previous !== connection) {
      previous.session = undefined;
      previous.ws.terminate();
    }
    session.connection = connection;
    connection.session = session;
    const missed = session.buffer.filter((entry) => entry.s > fromSeq);
    this.resumes.push({
      ...this.config.clock.stamp(),
      connectionId: connection.record.id,
      sessionId,
      fromSeq,
      accepted: true,
      replayed: missed.length,
    });
    for (const entry of missed) {
      this.#send(connection, { op: GatewayOpcodes.Dispatch, t: entry.t, s: entry.s, d: entry.d });
      entry.delivered = true;
    }
    this.#sendDispatch(session, 'RESUMED', { _trace: TRACE });
  }

  #onClose(connection: Connection, code: number): void {
    this.#open.delete(connection);
    const record = connection.record;
    record.closedAt = Date.now();
    record.closeCode = code;
    record.closedBy ??= 'client';
    const session = connection.session;
    if (session !== undefined && session.connection === connection) {
      session.connection = undefined;
      // A clean close by the client ends the session (Discord's rule for 1000 and 1001).
      if (record.closedBy === 'client' && (code === 1000 || code === 1001)) session.live = false;
    }
    this.config.clock.changed();
  }

  /**
   * Sends an event to every live session whose intents include `intent` (any session when undefined);
   * `build` may shape it per session (content without the Message Content intent) or skip it.
   */
  dispatch(t: string, intent: number | undefined, build: (session: GatewaySession) => unknown): void {
    for (const session of this.sessions.values()) {
      if (!session.live || (intent !== undefined && (session.intents & intent) === 0)) continue;
      const d = build(session);
      if (d !== undefined) this.#sendDispatch(session, t, d);
    }
  }

  #sendDispatch(session: GatewaySession, t: string, d: unknown): void {
    session.seq += 1;
    const connection = session.connection;
    const usable =
      connection !== undefined && !connection.zombie && connection.ws.readyState === connection.ws.OPEN;
    const record: DispatchRecord = {
      ...this.config.clock.stamp(),
      sessionId: session.id,
      t,
      s: session.seq,
      d,
      delivered: usable,
    };
    const keep = this.config.keepDispatches;
    session.buffer.push(record);
    if (session.buffer.length > Math.min(BUFFER_LIMIT, keep ?? BUFFER_LIMIT)) session.buffer.shift();
    this.dispatches.push(record);
    if (keep !== undefined && this.dispatches.length > keep) this.dispatches.shift();
    if (usable) this.#send(connection, { op: GatewayOpcodes.Dispatch, t, s: session.seq, d });
    this.config.clock.changed();
  }

  #send(connection: Connection, payload: Record<string, unknown>): void {
    if (connection.zombie || connection.ws.readyState !== connection.ws.OPEN) return;
    connection.ws.send(JSON.stringify(payload));
  }

  #close(connection: Connection, code: number, reason: string): void {
    connection.record.closedBy ??= 'fake';
    connection.ws.close(code, reason);
  }

  #live(): Connection[] {
    return [...this.#open].filter((c) => c.ws.readyState === c.ws.OPEN);
  }

  // --- faults -------------------------------------------------------------------------------------

  /**
   * Open connections go half-dead: heartbeats are no longer acked and dispatches are lost (kept for a
   * resume). With `blackhole`, the socket stops reading too, so even the close handshake never
   * completes (the client's own close timeout has to give up, 30 s with `ws`).
   */
  zombie(options: { blackhole?: boolean } = {}): void {
    for (const connection of this.#live()) {
      connection.zombie = true;
      if (options.blackhole === true) connection.socket.pause();
    }
  }

  /** Closes open connections: abruptly (the client sees 1006) or with `code` (e.g. 4000). */
  drop(code?: number, reason = 'Unknown error.'): void {
    for (const connection of this.#live()) {
      connection.record.closedBy = 'fake';
      if (code === undefined) connection.ws.terminate();
      else connection.ws.close(code, reason);
    }
  }

  /** Op 7: asks connected clients to reconnect and resume. */
  reconnect(): void {
    for (const connection of this.#live()) this.#send(connection, { op: GatewayOpcodes.Reconnect, d: null });
  }

  /** Op 9 to connected sessions; not resumable also forgets the session. */
  invalidateSession(resumable: boolean): void {
    for (const connection of this.#live()) {
      if (connection.session === undefined) continue;
      if (!resumable) connection.session.live = false;
      this.#send(connection, { op: GatewayOpcodes.InvalidSession, d: resumable });
    }
  }

  /** The next `times` RESUMEs answer INVALID_SESSION (d: false), as when Discord dropped the session. */
  refuseNextResume(times = 1): void {
    this.#refuseResumes += times;
  }

  /** The next `times` connection attempts get HTTP 503 instead of a WebSocket (the gateway is down). */
  refuseConnections(times: number): void {
    this.#refuseConnections = times;
  }

  /** Op 1 from the server: the client must heartbeat at once. */
  requestHeartbeat(): void {
    for (const connection of this.#live()) this.#send(connection, { op: GatewayOpcodes.Heartbeat, d: null });
  }

  openConnections(): number {
    return this.#live().length;
  }

  async close(): Promise<void> {
    for (const connection of this.#open) connection.ws.terminate();
    this.#open.clear();
    await new Promise<void>((resolve) => this.#wss.close(() => resolve()));
  }
}
