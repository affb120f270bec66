import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/load-config.js';
import { createRegistry } from '../../../src/registry/create-registry.js';
import { ToolPause } from '../../../src/registry/tool-pause.js';
import type { ToolServices } from '../../../src/registry/tool-services.js';
import { terminalTool } from '../../../src/tools/terminal.js';
import { realGate } from './gate-kit.js';
import { makeMachine, sandboxUnavailableReason, writeConfig } from './sandbox-kit.js';
import { makeCtx, makeServices, SYSTEM_PATH } from './terminal-test-kit.js';

const unavailable = sandboxUnavailableReason();
type Reply = Record<string, unknown>;

let machine: ReturnType<typeof makeMachine>;
beforeEach(() => {
  machine = makeMachine('hermes-sandbox-defaults-');
  writeFileSync(join(machine.userHome, 'notes.txt'), 'mine');
  mkdirSync(join(machine.userHome, '.ssh'));
  writeFileSync(join(machine.userHome, '.ssh', 'id_ed25519'), 'PRIVATE KEY');
});
afterEach(() => machine.cleanup());

function setup(yaml = ''): { services: ToolServices; gate: ReturnType<typeof realGate> } {
  writeConfig(machine.hermesHome, yaml);
  const config = loadConfig({ env: {}, home: machine.hermesHome });
  const gate = realGate(config);
  return {
    services: makeServices(config, {
      approvalGate: gate,
      baseEnv: { PATH: SYSTEM_PATH, HOME: machine.userHome },
    }),
    gate,
  };
}

async function run(
  services: ToolServices,
  command: string,
  unattended: boolean,
  cwd = machine.work,
): Promise<Reply> {
  const ctx = makeCtx(services, { cwd, unattended });
  return (await terminalTool.handler(terminalTool.parameters.parse({ command }), ctx)) as Reply;
}

describe('where commands run by default', () => {
  it('an unusable sandbox makes the terminal unavailable to unattended sessions only, never a silent local', async () => {
    const { services } = setup('terminal:\n  sandbox:\n    binary: /nonexistent/bwrap\n');
    expect(terminalTool.checkFn?.(services, { unattended: false })).toEqual({ ok: true });
    const unattended = terminalTool.checkFn?.(services, { unattended: true });
    expect(unattended).toMatchObject({ ok: false });
    expect((unattended as { reason: string }).reason).toMatch(
      /not found.*terminal\.unattended_backend: local/s,
    );

    // The model of an unattended session is not even offered the tool…
    const registry = createRegistry({ services });
    registry.register(terminalTool);
    expect(registry.getDefinitions(['terminal'], { unattended: false }).map((d) => d.function.name)).toEqual([
      'terminal',
    ]);
    expect(registry.getDefinitions(['terminal'], { unattended: true })).toEqual([]);
    // …and a call anyway is refused without running anything.
    const marker = join(machine.work, 'ran');
    const refused = await registry.dispatch(
      'terminal',
      { command: `touch ${marker}` },
      { sessionKey: 'agent:main:api_server:dm:x', taskId: 't', cwd: machine.work, unattended: true },
    );
    expect(refused.kind).toBe('error');
    expect(refused.content).toMatch(/not available/);
    await expect(run(services, `touch ${marker}`, true)).rejects.toThrow(
      /unavailable in unattended sessions/,
    );
    expect(() => readFileSync(marker)).toThrow();
  });

  it('terminal.unattended_backend: local is the explicit way out', async () => {
    const { services } = setup(
      'terminal:\n  unattended_backend: local\n  sandbox:\n    binary: /nonexistent/bwrap\n',
    );
    expect(terminalTool.checkFn?.(services, { unattended: true })).toEqual({ ok: true });
    expect((await run(services, 'ls ~', true))['output']).toBe('notes.txt');
  });
});

describe.skipIf(unavailable !== undefined)(
  `sandbox defaults${unavailable === undefined ? '' : ` (skipped: ${unavailable})`}`,
  () => {
    it('chats run local, unattended sessions run sandboxed', async () => {
      const { services } = setup();
      expect((await run(services, 'ls -A ~', false))['output']).toBe('.ssh\nnotes.txt');
      expect((await run(services, 'ls -A ~ | wc -l', true))['output']).toBe('0');
    });

    it('a command approved in chat runs in the sandbox like the session’s other commands', async () => {
      const { services, gate } = setup('terminal:\n  backend: sandbox\n');
      mkdirSync(join(machine.work, 'build'));
      const command = 'rm -r ./build; ls -A ~ | wc -l';
      const pause = await run(services, command, false).catch((error: unknown) => error);
      expect(pause).toBeInstanceOf(ToolPause);
      const request = (pause as ToolPause).payload as { id: string };
      expect((await gate.decide(request.id, 'session', { userId: 'u1' })).status).toBe('recorded');
      expect((await run(services, command, false))['output']).toBe('0');
    });

    it('terminal.approved_backend: local lets an approved command out, and only an approved one', async () => {
      const { services, gate } = setup('terminal:\n  backend: sandbox\n  approved_backend: local\n');
      expect((await run(services, 'ls -A ~ | wc -l', false))['output']).toBe('0');
      mkdirSync(join(machine.work, 'build'));
      const command = 'rm -r ./build; ls -A ~ | wc -l';
      const pause = await run(services, command, false).catch((error: unknown) => error);
      const request = (pause as ToolPause).payload as { id: string };
      await gate.decide(request.id, 'session', { userId: 'u1' });
      expect((await run(services, command, false))['output']).toBe('2');
    });

    it('a working directory inside the home is bound back; the rest of the home stays hidden', async () => {
      // The detector would refuse the key read before it ran; this test is about the wall behind it.
      const { services } = setup('approvals:\n  mode: off\n');
      const project = join(machine.userHome, 'project');
      mkdirSync(project);
      const reply = await run(
        services,
        'echo built > out.txt; pwd; ls -A ~; cat ~/.ssh/id_ed25519',
        true,
        project,
      );
      expect(String(reply['output'])).toContain(project);
      expect(String(reply['output'])).not.toContain('notes.txt');
      expect(String(reply['output'])).not.toContain('PRIVATE KEY');
      expect(readFileSync(join(project, 'out.txt'), 'utf8')).toBe('built\n');
    });
  },
);
