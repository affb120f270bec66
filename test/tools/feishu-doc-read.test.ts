import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createToolRuntime } from '../../src/app/create-tool-runtime.js';
import { isHermesError } from '../../src/errors/hermes-error.js';
import {
  feishuDocReaderFromConfig,
  parseDocReference,
} from '../../src/platforms/feishu/feishu-doc-reader.js';
import type { ToolContext } from '../../src/registry/tool-types.js';
import { feishuDocReadTool } from '../../src/tools/feishu-doc-read.js';
import { type FakeLark, startFakeLark } from '../fakes/fake-lark.js';
import { TOOLS_DIR } from '../gateway/e2e/gateway-kit.js';
import { makeTempHome, silentLogger, testConfig, testServices } from '../helpers/test-config.js';

let fake: FakeLark;
let temp: ReturnType<typeof makeTempHome>;

beforeEach(async () => {
  fake = await startFakeLark();
  temp = makeTempHome('hermes-feishu-doc-');
});
afterEach(async () => {
  await fake.close();
  temp.cleanup();
});

const feishuEnv = () => ({
  FEISHU_APP_ID: fake.appId,
  FEISHU_APP_SECRET: fake.appSecret,
  FEISHU_DOMAIN: fake.domain,
});

function ctx(services: ToolContext['services']): ToolContext {
  return {
    signal: new AbortController().signal,
    sessionKey: 'agent:main:feishu:dm:oc_1',
    taskId: 't1',
    cwd: temp.home,
    userId: 'ou_1',
    platform: 'feishu',
    unattended: false,
    toolCallId: 'c1',
    services,
  };
}

async function read(docToken: string) {
  const config = testConfig(temp.home, feishuEnv());
  const reader = feishuDocReaderFromConfig(config, silentLogger);
  if (reader === undefined) throw new Error('no reader');
  const services = testServices(config, { feishuDocs: reader });
  return feishuDocReadTool.handler(
    feishuDocReadTool.parameters.parse({ doc_token: docToken }),
    ctx(services),
  );
}

async function failure(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (isHermesError(error)) return error.message;
    throw error;
  }
  throw new Error('expected a failure');
}

describe('feishu_doc_read', () => {
  it('reads a document by link, token or wiki link, on feishu.cn and larksuite.com', async () => {
    const doc = fake.addDocument({ title: 'Runbook', content: 'Step 1: restart.\nStep 2: check.' });
    const node = fake.addWikiNode({ document: doc });
    expect(await read(`https://acme.feishu.cn/docx/${doc.documentId}?from=chat`)).toEqual({
      document_id: doc.documentId,
      content: 'Step 1: restart.\nStep 2: check.',
    });
    expect(await read(doc.documentId)).toMatchObject({ content: 'Step 1: restart.\nStep 2: check.' });
    expect(await read(`https://acme.larksuite.com/wiki/${node.nodeToken}`)).toEqual({
      document_id: doc.documentId,
      title: 'Runbook',
      content: 'Step 1: restart.\nStep 2: check.',
    });
  });

  it('says why a document cannot be read, and cuts a very long one', async () => {
    const hidden = fake.addDocument({ title: 'Secret', content: 'x', forbidden: true });
    expect(await failure(read(hidden.documentId))).toMatch(/Feishu refused: .*1770032/);
    expect(await failure(read('https://acme.feishu.cn/sheets/abc123456'))).toMatch(/only docx and wiki/);
    expect(await failure(read('ZZZZZZZZZZZZZZZZZZZZZZ'))).toMatch(/Feishu refused/);
    const big = fake.addDocument({ title: 'Big', content: 'y'.repeat(70_000) });
    expect(await read(big.documentId)).toMatchObject({ truncated: true, total_chars: 70_000 });
  });

  it('parses references strictly', () => {
    expect(parseDocReference('https://x.feishu.cn/wiki/AbCdEf123456')).toEqual({
      kind: 'wiki',
      token: 'AbCdEf123456',
    });
    expect(() => parseDocReference('../../etc/passwd')).toThrow(/not a document token/);
  });

  it('is available only when Feishu is configured', async () => {
    for (const [env, available] of [
      [{}, false],
      [feishuEnv(), true],
    ] as const) {
      const runtime = await createToolRuntime({
        config: testConfig(temp.home, env),
        logger: silentLogger,
        baseEnv: { PATH: '/usr/bin:/bin' },
        builtinToolsDir: TOOLS_DIR,
      });
      try {
        const names = runtime.registry
          .getDefinitions(runtime.toolsets.resolve('hermes-feishu'))
          .map((definition) => definition.function.name);
        expect(names.includes('feishu_doc_read')).toBe(available);
      } finally {
        await runtime.close();
      }
    }
  });
});
