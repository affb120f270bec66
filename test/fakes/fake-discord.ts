import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { type APIApplicationCommand, GatewayIntentBits } from 'discord.js';
import { buttonsOf, type FakeButton } from './fake-discord/api-objects.js';
import {
  DiscordWorld,
  type FakeAttachment,
  type FakeChannel,
  type FakeChannelKind,
  type FakeGuild,
  type FakeMember,
  type FakeMessage,
  type FakeRole,
  type FakeUser,
} from './fake-discord/discord-world.js';
import { EventClock } from './fake-discord/event-clock.js';
import {
  emitChannel,
  emitGuildCreate,
  emitMember,
  emitRole,
  type FakeCore,
  type TypingRecord,
} from './fake-discord/fake-core.js';
import { FakeGateway } from './fake-discord/fake-gateway.js';
import { guildCreatePayloads, membersChunk, readyPayload } from './fake-discord/gateway-payloads.js';
import type { FakeInteraction } from './fake-discord/interactions.js';
import { appRoutes } from './fake-discord/rest-app.js';
import { channelRoutes } from './fake-discord/rest-channels.js';
import { interactionRoutes } from './fake-discord/rest-interactions.js';
import { type RecordedCall, type RestFailure, RestRouter } from './fake-discord/rest-router.js';
import { threadRoutes } from './fake-discord/rest-threads.js';
import { addGuildWithBot, type FakeDiscordSeed, seedWorld } from './fake-discord/seed-world.js';
import {
  type ClickInput,
  type CommandInput,
  choose,
  click,
  runCommand,
  type UserMessageInput,
  userMessage,
  userThread,
} from './fake-discord/user-actions.js';

export type {
  ConnectionRecord,
  DispatchRecord,
  IdentifyRecord,
  ResumeRecord,
} from './fake-discord/fake-gateway.js';
export type { InteractionCallbackRecord } from './fake-discord/interactions.js';
export type {
  ClickInput,
  CommandInput,
  FakeAttachment,
  FakeButton,
  FakeChannel,
  FakeDiscordSeed,
  FakeGuild,
  FakeInteraction,
  FakeMember,
  FakeMessage,
  FakeRole,
  FakeUser,
  RecordedCall,
  RestFailure,
  TypingRecord,
  UserMessageInput,
};

export interface FakeDiscordOptions {
  readonly token?: string;
  /** HELLO's heartbeat interval (Discord: 41250 ms); tests use a few hundred ms. */
  readonly heartbeatIntervalMs?: number;
  /** Window for an interaction's first callback (Discord: 3000 ms). */
  readonly interactionWindowMs?: number;
  /** Interaction token lifetime for follow-ups and edits (Discord: 15 minutes). */
  readonly interactionTokenLifetimeMs?: number;
  /** Privileged intents enabled in the developer portal (default all three). */
  readonly privilegedIntents?: number;
  /**
   * Dispatch records kept (the `dispatches` log and each session's resume buffer; default: every
   * dispatch logged, 2,000 buffered). A long fuzz sets a few, so the heap it measures is the
   * client's, not the fake's own log.
   */
  readonly keepDispatches?: number;
}

/** The gateway's records and faults (see fake-discord/fake-gateway.ts). */
export type FakeDiscordGateway = Pick<
  FakeGateway,
  | 'connections'
  | 'identifies'
  | 'resumes'
  | 'dispatches'
  | 'frames'
  | 'sessions'
  | 'zombie'
  | 'drop'
  | 'reconnect'
  | 'invalidateSession'
  | 'refuseNextResume'
  | 'refuseConnections'
  | 'refusedConnections'
  | 'requestHeartbeat'
  | 'openConnections'
>;

export interface FakeDiscord {
  /** Pass as discord.js `rest: { api }`; REST lives under `{apiRoot}/v10`. */
  readonly apiRoot: string;
  /** What GET /gateway/bot hands out; resumes go to `…/resume`. */
  readonly gatewayUrl: string;
  /** The valid bot token (changes after `revokeToken`). */
  readonly token: string;
  /**
   * The token is reset (as in the developer portal): the old one gets 401 on REST, open gateway
   * connections close with 4004 Authentication failed. Returns the new token.
   */
  revokeToken(): string;
  readonly bot: FakeUser;
  /** The application id (the bot user's id, as for most apps). */
  readonly applicationId: string;
  readonly seed: FakeDiscordSeed;
  readonly world: DiscordWorld;
  readonly gateway: FakeDiscordGateway;

  addUser(input: { username: string; globalName?: string; bot?: boolean }): FakeUser;
  addGuild(input: { name: string; ownerId?: string }): FakeGuild;
  addChannel(
    guildId: string,
    input: { name: string; kind?: FakeChannelKind; parentId?: string },
  ): FakeChannel;
  addRole(guildId: string, input: { name: string; permissions?: bigint }): FakeRole;
  addMember(guildId: string, userId: string, roleIds?: string[]): FakeMember;
  /** Replaces the permissions of the bot's role in a guild. */
  setBotPermissions(guildId: string, permissions: bigint): void;
  /** The bot loses its permissions in one channel (writes answer 50013). */
  denyBot(channelId: string): void;
  /** The user refuses DMs (sending answers 50007). */
  blockDms(userId: string): void;
  dmChannel(userId: string): FakeChannel;

  /** A user posts in a guild channel or thread (MESSAGE_CREATE). */
  say(channelId: string, input: UserMessageInput): FakeMessage;
  /** A user writes to the bot in DM. */
  dm(input: UserMessageInput): FakeMessage;
  /** A user starts a thread (THREAD_CREATE), from a message or not. */
  startThread(
    parentId: string,
    input: { authorId: string; name: string; fromMessageId?: string; private?: boolean },
  ): FakeChannel;
  click(input: ClickInput): FakeInteraction;
  choose(input: { messageId: string; userId: string; customId: string; values: string[] }): FakeInteraction;
  command(input: CommandInput): FakeInteraction;
  /** A raw dispatch to every live session. */
  dispatch(t: string, d: unknown): void;

  readonly calls: readonly RecordedCall[];
  /** Calls of one route, e.g. `POST /channels/:channel_id/messages`. */
  callsTo(route: string): RecordedCall[];
  /** Errors the fake threw while answering (should stay empty). */
  readonly internalErrors: readonly unknown[];
  /** What a user sees in a channel, oldest first (ephemeral messages only for `viewerId`). */
  messages(channelId: string, viewerId?: string): FakeMessage[];
  message(messageId: string): FakeMessage | undefined;
  buttons(messageId: string): FakeButton[];
  readonly interactions: readonly FakeInteraction[];
  commands(guildId?: string): APIApplicationCommand[];
  typing(channelId?: string): TypingRecord[];

  /** The next `times` calls of `route` fail (429 with Discord's headers, 5xx …). */
  failNext(route: string, failure: RestFailure): void;
  delayNext(route: string, delayMs: number, times?: number): void;
  clearFaults(): void;

  /** Resolves with `probe`'s first truthy value, re-checked whenever the fake records something. */
  waitFor<T>(probe: () => T | undefined | null | false, what?: string, timeoutMs?: number): Promise<T>;
  /** The next answered call of `route` matching `match` (already answered ones count). */
  waitForCall(
    route: string,
    match?: (call: RecordedCall) => boolean,
    timeoutMs?: number,
  ): Promise<RecordedCall>;
  close(): Promise<void>;
}

/**
 * A fake Discord (REST API v10 + gateway) on 127.0.0.1 that real discord.js talks to through
 * `rest.api`. It starts with one guild (see `seed`); what users do is dispatched on the gateway,
 * what the bot does through REST is checked against Discord's rules and kept as channel state.
 *
 * ```ts
 * const fake = await startFakeDiscord({ heartbeatIntervalMs: 250 });
 * const client = new Client({ intents, partials: [Partials.Channel], rest: { api: fake.apiRoot } });
 * await client.login(fake.token);
 * const { general } = fake.seed.channels;
 * fake.say(general, { authorId: fake.seed.users.alice.id, content: `<@${fake.bot.id}> hi` });
 * const reply = await fake.waitFor(() => fake.messages(general).find((m) => m.authorId === fake.bot.id));
 * const click = fake.click({ messageId: reply.id, userId: fake.seed.users.owner.id, label: 'Allow once' });
 * await fake.waitFor(() => click.acknowledged);            // click.callbacks[0].type === 6, .seq, .elapsedMs
 * fake.gateway.zombie();                                   // heartbeats unanswered → discord.js resumes
 * fake.failNext('POST /channels/:channel_id/messages', { status: 429, retryAfter: 0.2 });
 * await fake.close();
 * ```
 */
export async function startFakeDiscord(options: FakeDiscordOptions = {}): Promise<FakeDiscord> {
  let token = options.token ?? 'MTAwMDAwMDAwMDAwMDAwMDAx.FakeGw.discord-fake-token-for-tests-only';
  const clock = new EventClock();
  const world = new DiscordWorld('Hermes');
  const botRoles = new Map<string, FakeRole>();
  const privilegedIntents =
    options.privilegedIntents ??
    GatewayIntentBits.GuildMembers | GatewayIntentBits.GuildPresences | GatewayIntentBits.MessageContent;
  let origin = '';
  const gateway = new FakeGateway({
    token: () => token,
    heartbeatIntervalMs: options.heartbeatIntervalMs ?? 41_250,
    privilegedIntents: privilegedIntents,
    ...(options.keepDispatches !== undefined ? { keepDispatches: options.keepDispatches } : {}),
    clock,
    resumeUrl: () => `${origin.replace('http', 'ws')}/resume`,
    ready: (session, resumeUrl) => readyPayload(world, session, resumeUrl),
    guildCreates: (intents) => guildCreatePayloads(world, intents),
    membersChunk: (request) => membersChunk(world, request),
  });
  const core: FakeCore = {
    world,
    gateway,
    clock,
    config: {
      interactionWindowMs: options.interactionWindowMs ?? 3000,
      interactionTokenLifetimeMs: options.interactionTokenLifetimeMs ?? 15 * 60_000,
      privilegedIntents,
    },
    interactions: new Map(),
    typing: [],
    origin: () => origin,
  };
  const router = new RestRouter(
    [
      ...appRoutes(core, {
        url: () => `${origin.replace('http', 'ws')}/gateway`,
        identifiesLeft: () => 1000 - gateway.identifies.filter((i) => i.accepted).length,
      }),
      ...channelRoutes(core),
      ...threadRoutes(core),
      ...interactionRoutes(core),
    ],
    () => token,
    clock,
  );

  const seed = seedWorld(world, botRoles);

  const server = createServer((req, res) => {
    if (req.url?.startsWith('/attachments/')) return serveAttachment(world, req, res);
    router.handle(req, res).catch((error: unknown) => {
      router.internalErrors.push(error);
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  server.on('upgrade', (req, socket, head) => gateway.handleUpgrade(req, socket, head));
  const sockets = new Set<Socket>();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const channelOf = (id: string) => world.channel(id);
  let closed = false;
  return {
    apiRoot: `${origin}/api`,
    gatewayUrl: `${origin.replace('http', 'ws')}/gateway`,
    get token() {
      return token;
    },
    revokeToken() {
      token = `${token.split('.')[0]}.Revoked.${world.ids.next()}`;
      gateway.drop(4004, 'Authentication failed.');
      return token;
    },
    bot: world.bot,
    applicationId: world.bot.id,
    seed,
    world,
    gateway,
    addUser: (input) => world.addUser(input),
    addGuild(input) {
      const { guild, botRole } = addGuildWithBot(world, input);
      botRoles.set(guild.id, botRole);
      emitGuildCreate(core, guild);
      return guild;
    },
    addChannel(guildId, input) {
      const channel = world.addChannel(guildId, input);
      emitChannel(core, 'create', channel);
      return channel;
    },
    addRole(guildId, input) {
      const role = world.addRole(guildId, input);
      emitRole(core, role);
      return role;
    },
    addMember(guildId, userId, roleIds = []) {
      const added = world.addMember(guildId, userId, roleIds);
      emitMember(core, 'GUILD_MEMBER_ADD', added);
      return added;
    },
    setBotPermissions(guildId, permissions) {
      const role = botRoles.get(guildId);
      if (role === undefined) throw new Error(`fake discord: no bot role in ${guildId}`);
      world.guild(guildId).roles.set(role.id, { ...role, permissions });
    },
    denyBot: (channelId) => {
      channelOf(channelId).botDenied = true;
    },
    blockDms: (userId) => {
      world.user(userId).dmsBlocked = true;
    },
    dmChannel: (userId) => world.dmChannel(userId),
    say: (channelId, input) => userMessage(core, channelOf(channelId), input),
    dm: (input) => userMessage(core, world.dmChannel(input.authorId), input),
    startThread: (parentId, input) => userThread(core, channelOf(parentId), input),
    click: (input) => click(core, input),
    choose: (input) => choose(core, input),
    command: (input) => runCommand(core, input),
    dispatch: (t, d) => gateway.dispatch(t, undefined, () => d),
    calls: router.calls,
    callsTo: (route) => router.calls.filter((c) => c.route === route),
    internalErrors: router.internalErrors,
    messages: (channelId, viewerId) => world.visibleMessages(channelId, viewerId),
    message: (messageId) => world.messages.get(messageId),
    buttons: (messageId) => {
      const message = world.messages.get(messageId);
      return message === undefined ? [] : buttonsOf(message);
    },
    get interactions() {
      return [...core.interactions.values()];
    },
    commands: (guildId) => world.commands.get(guildId ?? 'global') ?? [],
    typing: (channelId) => core.typing.filter((t) => channelId === undefined || t.channelId === channelId),
    failNext: (route, failure) => router.failNext(route, failure),
    delayNext: (route, delayMs, times) => router.delayNext(route, delayMs, times),
    clearFaults: () => router.clearFaults(),
    waitFor: (probe, what = 'a condition', timeoutMs = 5000) => clock.waitFor(probe, what, timeoutMs),
    waitForCall: (route, match = () => true, timeoutMs = 5000) =>
      clock.waitFor(
        () => router.calls.find((c) => c.route === route && c.status !== undefined && match(c)),
        `an answered ${route}`,
        timeoutMs,
      ),
    async close() {
      if (closed) return;
      closed = true;
      clock.close();
      router.close();
      await gateway.close();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function serveAttachment(world: DiscordWorld, req: IncomingMessage, res: ServerResponse): void {
  const id = (req.url ?? '').split('/')[3] ?? '';
  let found: FakeAttachment | undefined;
  for (const message of world.messages.values()) found ??= message.attachments.find((a) => a.id === id);
  if (found === undefined) {
    res.writeHead(404).end();
    return;
  }
  res.writeHead(200, {
    'content-type': found.contentType ?? 'application/octet-stream',
    'content-length': found.bytes.length,
  });
  res.end(found.bytes);
}
