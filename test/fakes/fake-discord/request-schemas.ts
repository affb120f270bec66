/**
 * Request bodies as Discord validates them, with the limits an adapter can get wrong: content ≤ 2000
 * (counted in UTF-16 units, never looser than Discord), ≤ 10 embeds of ≤ 6000 characters, ≤ 5
 * action rows of ≤ 5 buttons (or one select), custom_id 1–100, button label ≤ 80, unique custom_ids.
 * Unknown keys pass (Discord ignores them); errors come back as Discord's `Invalid Form Body` tree.
 */
import { z } from 'zod';
import { fieldOf, isRecord } from './is-record.js';
import { discordMessage as dm } from './rest-errors.js';

const text = (max: number) =>
  z.string().max(max, dm('BASE_TYPE_MAX_LENGTH', `Must be ${max} or fewer in length.`));
const textRange = (min: number, max: number) => {
  const bad = dm('BASE_TYPE_BAD_LENGTH', `Must be between ${min} and ${max} in length.`);
  return z.string().min(min, bad).max(max, bad);
};
const list = <T extends z.ZodType>(item: T, min: number, max: number) => {
  const bad = dm('BASE_TYPE_BAD_LENGTH', `Must be between ${min} and ${max} in length.`);
  return z.array(item).min(min, bad).max(max, bad);
};
const int = (min: number, max: number) => z.number().int().min(min).max(max);
const snowflake = z.union([z.string().regex(/^\d{1,20}$/), z.number().int().nonnegative()]).transform(String);

const emoji = z.looseObject({
  id: snowflake.nullish(),
  name: z.string().nullish(),
  animated: z.boolean().nullish(),
});

const button = z
  .looseObject({
    type: z.literal(2),
    style: int(1, 6),
    label: text(80).nullish(),
    custom_id: textRange(1, 100).nullish(),
    url: text(512).nullish(),
    emoji: emoji.nullish(),
    disabled: z.boolean().nullish(),
    sku_id: snowflake.nullish(),
  })
  .superRefine((b, ctx) => {
    const issue = (path: string, code: string, message: string) =>
      ctx.addIssue({ code: 'custom', path: [path], message: dm(code, message) });
    if (b.style === 5) {
      if (b.url == null) issue('url', 'BASE_TYPE_REQUIRED', 'This field is required');
      if (b.custom_id != null)
        issue('custom_id', 'COMPONENT_LINK_BUTTON_CUSTOM_ID', 'A link button cannot have a custom id.');
    } else if (b.style !== 6) {
      if (b.custom_id == null) issue('custom_id', 'BASE_TYPE_REQUIRED', 'This field is required');
      if (b.url != null) issue('url', 'COMPONENT_BUTTON_URL', 'Only link buttons can have a url.');
    }
    if (b.style !== 6 && (b.label == null || b.label === '') && b.emoji == null) {
      issue('label', 'BUTTON_COMPONENT_LABEL_OR_EMOJI_REQUIRED', 'A button needs a label or an emoji.');
    }
  });

const selectOption = z.looseObject({
  label: textRange(1, 100),
  value: textRange(1, 100),
  description: text(100).nullish(),
  emoji: emoji.nullish(),
  default: z.boolean().nullish(),
});
const selectBase = {
  custom_id: textRange(1, 100),
  placeholder: text(150).nullish(),
  min_values: int(0, 25).nullish(),
  max_values: int(1, 25).nullish(),
  disabled: z.boolean().nullish(),
};
const stringSelect = z.looseObject({ type: z.literal(3), ...selectBase, options: list(selectOption, 1, 25) });
const otherSelect = z.looseObject({
  type: z.union([z.literal(5), z.literal(6), z.literal(7), z.literal(8)]),
  ...selectBase,
});

const actionRow = z
  .looseObject({
    type: z.literal(1),
    components: list(z.discriminatedUnion('type', [button, stringSelect, otherSelect]), 1, 5),
  })
  .superRefine((row, ctx) => {
    if (row.components.some((c) => c.type !== 2) && row.components.length > 1) {
      ctx.addIssue({
        code: 'custom',
        path: ['components'],
        message: dm('COMPONENT_LAYOUT_WIDTH_EXCEEDED', 'The specified component exceeds the maximum width'),
      });
    }
  });

const embedField = z.looseObject({
  name: textRange(1, 256),
  value: textRange(1, 1024),
  inline: z.boolean().nullish(),
});
const embed = z.looseObject({
  title: text(256).nullish(),
  description: text(4096).nullish(),
  url: z.string().nullish(),
  color: int(0, 0xffffff).nullish(),
  timestamp: z.string().nullish(),
  fields: list(embedField, 0, 25).nullish(),
  footer: z.looseObject({ text: text(2048) }).nullish(),
  author: z.looseObject({ name: text(256) }).nullish(),
});

const allowedMentions = z
  .looseObject({
    parse: z.array(z.enum(['users', 'roles', 'everyone'])).nullish(),
    users: list(snowflake, 0, 100).nullish(),
    roles: list(snowflake, 0, 100).nullish(),
    replied_user: z.boolean().nullish(),
  })
  .superRefine((a, ctx) => {
    for (const kind of ['users', 'roles'] as const) {
      if (a.parse?.includes(kind) && (a[kind]?.length ?? 0) > 0) {
        ctx.addIssue({
          code: 'custom',
          path: ['parse'],
          message: dm(
            'MESSAGE_ALLOWED_MENTIONS_PARSE_EXCLUSIVE',
            `parse:["${kind}"] and ${kind}: [ids...] are mutually exclusive.`,
          ),
        });
      }
    }
  });

const messageReference = z.looseObject({
  message_id: snowflake,
  channel_id: snowflake.nullish(),
  guild_id: snowflake.nullish(),
  fail_if_not_exists: z.boolean().nullish(),
  type: z.union([z.literal(0), z.literal(1)]).nullish(),
});

/** Components v2 (flag 1 << 15): any layout, ≤ 40 components in all; buttons inside still checked. */
export const IS_COMPONENTS_V2 = 1 << 15;
export const EPHEMERAL = 1 << 6;

const messageFields = {
  content: text(2000).nullish(),
  embeds: list(embed, 0, 10).nullish(),
  allowed_mentions: allowedMentions.nullish(),
  components: z.array(z.looseObject({ type: z.number().int() })).nullish(),
  attachments: z.array(z.looseObject({ id: snowflake })).nullish(),
  flags: z.number().int().nonnegative().nullish(),
  sticker_ids: list(snowflake, 0, 3).nullish(),
  poll: z.looseObject({}).nullish(),
};

export const messageCreateBody = z
  .looseObject({
    ...messageFields,
    tts: z.boolean().nullish(),
    nonce: z.union([text(25), z.number().int()]).nullish(),
    enforce_nonce: z.boolean().nullish(),
    message_reference: messageReference.nullish(),
  })
  .superRefine(checkComponents);

export const messageEditBody = z.looseObject(messageFields).superRefine(checkComponents);

export type MessageCreateBody = z.infer<typeof messageCreateBody>;
export type MessageEditBody = z.infer<typeof messageEditBody>;

function checkComponents(
  body: {
    components?: { type: number }[] | null | undefined;
    flags?: number | null | undefined;
    content?: string | null;
    embeds?: unknown[] | null;
  },
  ctx: z.RefinementCtx,
): void {
  const components = body.components ?? [];
  const v2 = ((body.flags ?? 0) & IS_COMPONENTS_V2) !== 0;
  const issue = (path: (string | number)[], code: string, message: string) =>
    ctx.addIssue({ code: 'custom', path, message: dm(code, message) });
  if (v2) {
    if ((body.content ?? '') !== '')
      issue(
        ['content'],
        'MESSAGE_CANNOT_USE_LEGACY_FIELDS_WITH_COMPONENTS_V2',
        "The 'content' field cannot be used when using MessageFlags.IS_COMPONENTS_V2",
      );
    if ((body.embeds ?? []).length > 0)
      issue(
        ['embeds'],
        'MESSAGE_CANNOT_USE_LEGACY_FIELDS_WITH_COMPONENTS_V2',
        "The 'embeds' field cannot be used when using MessageFlags.IS_COMPONENTS_V2",
      );
  } else if (components.length > 5) {
    issue(['components'], 'BASE_TYPE_BAD_LENGTH', 'Must be between 0 and 5 in length.');
  }
  const seen = new Set<string>();
  let total = 0;
  const visit = (record: unknown, path: (string | number)[]): void => {
    if (!isRecord(record)) return;
    total += 1;
    if (record['type'] === 2 && v2) {
      const parsed = button.safeParse(record);
      if (!parsed.success)
        for (const i of parsed.error.issues)
          ctx.addIssue({ code: 'custom', path: [...path, ...i.path.map(String)], message: i.message });
    }
    const id = record['custom_id'];
    if (typeof id === 'string') {
      if (seen.has(id))
        issue(
          [...path, 'custom_id'],
          'COMPONENT_CUSTOM_ID_DUPLICATED',
          'Component custom id cannot be duplicated',
        );
      seen.add(id);
    }
    const children = record['components'];
    if (Array.isArray(children)) {
      for (const [i, child] of children.entries()) visit(child, [...path, 'components', i]);
    }
    if (record['accessory'] !== undefined) visit(record['accessory'], [...path, 'accessory']);
  };
  components.forEach((component, i) => {
    if (!v2) {
      const parsed = actionRow.safeParse(component);
      if (!parsed.success) {
        for (const i2 of parsed.error.issues)
          ctx.addIssue({
            code: 'custom',
            path: ['components', i, ...i2.path.map(String)],
            message: i2.message.includes('|') ? i2.message : dm(...codeOf(i2)),
          });
      }
    }
    visit(component, ['components', i]);
  });
  if (v2 && total > 40)
    issue(['components'], 'COMPONENT_MAX_TOTAL_COMPONENTS_EXCEEDED', 'Exceeds the maximum of 40 components.');
  const embedText = (body.embeds ?? []).reduce<number>((sum, e) => sum + embedLength(e), 0);
  if (embedText > 6000)
    issue(['embeds'], 'MESSAGE_EMBED_SIZE_TOO_LARGE', 'Embed size exceeds maximum size of 6000');
}

function codeOf(issue: z.core.$ZodIssue): [string, string] {
  if (issue.code === 'invalid_union')
    return ['UNION_TYPE_CHOICES', 'Value of field "type" must be one of (2, 3, 5, 6, 7, 8).'];
  if (issue.code === 'invalid_value')
    return ['BASE_TYPE_CHOICES', `Value must be one of ${issue.values.map(String).join(', ')}.`];
  return ['BASE_TYPE_INVALID', issue.message];
}

function embedLength(e: unknown): number {
  if (!isRecord(e)) return 0;
  const len = (v: unknown) => (typeof v === 'string' ? v.length : 0);
  const sub = (v: unknown, key: string) => len(fieldOf(v, key));
  const fields = Array.isArray(e['fields']) ? e['fields'] : [];
  return (
    len(e['title']) +
    len(e['description']) +
    sub(e['footer'], 'text') +
    sub(e['author'], 'name') +
    fields.reduce<number>((sum, f) => sum + sub(f, 'name') + sub(f, 'value'), 0)
  );
}

export const threadBody = z.looseObject({
  name: textRange(1, 100),
  auto_archive_duration: z
    .union([z.literal(60), z.literal(1440), z.literal(4320), z.literal(10080)])
    .nullish(),
  rate_limit_per_user: int(0, 21600).nullish(),
  /** Threads not started from a message: 10 announcement, 11 public, 12 private. */
  type: z.union([z.literal(10), z.literal(11), z.literal(12)]).nullish(),
  invitable: z.boolean().nullish(),
});

export const channelModifyBody = z.looseObject({
  name: textRange(1, 100).nullish(),
  topic: text(1024).nullish(),
  rate_limit_per_user: int(0, 21600).nullish(),
  nsfw: z.boolean().nullish(),
  archived: z.boolean().nullish(),
  locked: z.boolean().nullish(),
});

export const memberModifyBody = z.looseObject({
  nick: text(32).nullish(),
  roles: z.array(snowflake).nullish(),
  communication_disabled_until: z.iso.datetime({ offset: true }).nullish(),
});

export const interactionCallbackBody = z.looseObject({
  type: z.union([1, 4, 5, 6, 7, 8, 9, 10, 12].map((n) => z.literal(n))),
  data: z.unknown().optional(),
});

export const modalData = z.looseObject({
  custom_id: textRange(1, 100),
  title: textRange(1, 45),
  components: list(z.looseObject({ type: z.number().int() }), 1, 5),
});

const commandName = z
  .string()
  .regex(
    /^[-_'\p{L}\p{N}\p{sc=Deva}\p{sc=Thai}]{1,32}$/u,
    dm('APPLICATION_COMMAND_INVALID_NAME', 'Command name is invalid'),
  );

type CommandOption = {
  type: number;
  name: string;
  description: string;
  required?: boolean | null | undefined;
  options?: CommandOption[] | null | undefined;
  choices?: unknown[] | null | undefined;
};

const commandOption: z.ZodType<CommandOption> = z.lazy(() =>
  z.looseObject({
    type: int(1, 11),
    name: commandName,
    description: textRange(1, 100),
    required: z.boolean().nullish(),
    choices: list(
      z.looseObject({ name: textRange(1, 100), value: z.union([text(100), z.number()]) }),
      0,
      25,
    ).nullish(),
    options: list(commandOption, 0, 25).nullish(),
  }),
);

export const commandBody = z
  .looseObject({
    name: commandName,
    type: int(1, 4).nullish(),
    description: z.string().nullish(),
    options: list(commandOption, 0, 25).nullish(),
    default_member_permissions: z.string().nullish(),
    dm_permission: z.boolean().nullish(),
    contexts: z.array(int(0, 2)).nullish(),
    integration_types: z.array(int(0, 1)).nullish(),
    nsfw: z.boolean().nullish(),
  })
  .superRefine((command, ctx) => {
    const issue = (path: (string | number)[], code: string, message: string) =>
      ctx.addIssue({ code: 'custom', path, message: dm(code, message) });
    const chatInput = (command.type ?? 1) === 1;
    if (chatInput && command.name !== command.name.toLowerCase()) {
      issue(['name'], 'APPLICATION_COMMAND_INVALID_NAME', 'Command name is invalid');
    }
    const description = command.description ?? '';
    if (chatInput && (description.length < 1 || description.length > 100)) {
      issue(['description'], 'BASE_TYPE_BAD_LENGTH', 'Must be between 1 and 100 in length.');
    }
    if (!chatInput && description !== '')
      issue(
        ['description'],
        'APPLICATION_COMMAND_INVALID_DESCRIPTION',
        'Context menu commands cannot have a description.',
      );
    const checkOrder = (options: CommandOption[], path: (string | number)[]) => {
      let optionalSeen = false;
      options.forEach((option, i) => {
        if (option.type === 1 || option.type === 2) {
          checkOrder(option.options ?? [], [...path, i, 'options']);
          return;
        }
        if (option.required === true && optionalSeen) {
          issue(
            [...path, i, 'required'],
            'APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID',
            'Required options must be placed before non-required options',
          );
        }
        if (option.required !== true) optionalSeen = true;
      });
      const names = options.map((o) => o.name);
      if (new Set(names).size !== names.length)
        issue(path, 'APPLICATION_COMMAND_OPTIONS_NAME_ALREADY_EXISTS', 'Option names must be unique');
    };
    checkOrder(command.options ?? [], ['options']);
  });

export type CommandBody = z.infer<typeof commandBody>;

export const commandsBulkBody = list(commandBody, 0, 100).superRefine((commands, ctx) => {
  const keys = commands.map((c) => `${c.type ?? 1}:${c.name}`);
  keys.forEach((key, i) => {
    if (keys.indexOf(key) !== i) {
      ctx.addIssue({
        code: 'custom',
        path: [i, 'name'],
        message: dm('APPLICATION_COMMANDS_DUPLICATE_NAME', 'Application command names must be unique'),
      });
    }
  });
});
