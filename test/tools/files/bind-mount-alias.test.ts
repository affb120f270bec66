import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FileToolKit, makeFileToolKit } from './file-tool-kit.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const TSX = join(ROOT, 'node_modules', '.bin', 'tsx');

/** bubblewrap can give a child its own mount namespace with a bind mount (as root, or unprivileged). */
const canBind =
  process.platform === 'linux' &&
  existsSync(TSX) &&
  spawnSync('bwrap', ['--dev-bind', '/', '/', '--bind', '/tmp', '/mnt', 'true'], { stdio: 'ignore' })
    .status === 0;

/**
 * Runs read_file and write_file in a child whose mount namespace shows HERMES_HOME a second time
 * at `mount`: there is no symlink and no extra hard link (the link count stays 1), only the same
 * device and inode under another path.
 */
const CHILD = `
import { silentLogger } from '${ROOT}/test/helpers/test-config.js';
import { loadConfig } from '${ROOT}/src/config/load-config.js';
import { readFileTool } from '${ROOT}/src/tools/read-file.js';
import { writeFileTool } from '${ROOT}/src/tools/write-file.js';
const [home, cwd, mount, pluginsMount] = process.argv.slice(-4);
const config = loadConfig({ env: {}, home });
const ctx = {
  signal: new AbortController().signal, sessionKey: 's', taskId: 't', cwd, userId: undefined,
  platform: undefined, unattended: false, toolCallId: undefined,
  services: { config, logger: silentLogger },
};
const outcome = async (run) => { try { return String(await run()); } catch (e) { return 'error:' + e.code; } };
const read = await outcome(() => readFileTool.handler(readFileTool.parameters.parse({ path: mount + '/.env' }), ctx));
const write = await outcome(() =>
  writeFileTool.handler(writeFileTool.parameters.parse({ path: mount + '/plugins/evil.mjs', content: 'x' }), ctx));
const plugin = await outcome(() =>
  writeFileTool.handler(writeFileTool.parameters.parse({ path: pluginsMount + '/evil.mjs', content: 'x' }), ctx));
process.stdout.write(JSON.stringify({ read, write, plugin }));
`;

let kit: FileToolKit;
beforeEach(() => {
  kit = makeFileToolKit();
});
afterEach(() => kit.cleanup());

describe.skipIf(!canBind)('protected files seen through a bind mount (bubblewrap)', () => {
  it('refuses to read the .env and to write a plugin through another mount of HERMES_HOME or of plugins/', () => {
    writeFileSync(join(kit.home, '.env'), 'OPENAI_API_KEY=sk-bind-mounted\n');
    mkdirSync(join(kit.home, 'plugins'));
    const mount = join(kit.cwd, 'mnt');
    const pluginsMount = join(kit.cwd, 'plugins-mnt');
    mkdirSync(mount);
    mkdirSync(pluginsMount);
    const script = join(kit.cwd, 'child.mts');
    writeFileSync(script, CHILD);
    const child = spawnSync(
      'bwrap',
      [
        ...[
          '--dev-bind',
          '/',
          '/',
          '--bind',
          kit.home,
          mount,
          '--bind',
          join(kit.home, 'plugins'),
          pluginsMount,
        ],
        ...[TSX, script, kit.home, kit.cwd, mount, pluginsMount],
      ],
      { encoding: 'utf8', cwd: ROOT, env: { ...process.env, HOME: kit.userHome } },
    );
    expect(child.stderr).toBe('');
    const result = JSON.parse(child.stdout) as Record<string, string>;
    expect(result).toEqual({
      read: 'error:path_refused',
      write: 'error:path_refused',
      plugin: 'error:path_refused',
    });
    expect(existsSync(join(kit.home, 'plugins', 'evil.mjs'))).toBe(false);
  });
});
