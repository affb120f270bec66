import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../../gateway/e2e/gateway-kit.js';
import { recordingSink } from '../telegram/telegram-kit.js';
import { type FeishuSetup, setupFeishu } from './feishu-kit.js';

/** The SDK's long connection: lost and back again, as /readyz sees it. */
describe('feishu long connection', () => {
  let setup: FeishuSetup | undefined;
  afterEach(async () => {
    await setup?.close();
    setup = undefined;
  });

  it('reports a lost connection while it reconnects, then the reconnect count, and receives again', async () => {
    setup = await setupFeishu('websocket');
    const { fake, adapter } = setup;
    const recorder = recordingSink();
    await adapter.start(recorder.sink);
    expect(await adapter.health()).toEqual({ ok: true });
    expect(fake.ws.connections).toBe(1);

    fake.ws.refuse({ upgrade: 'forbidden' });
    fake.ws.drop();
    await waitFor(async () => !(await adapter.health()).ok);
    expect((await adapter.health()).reason).toMatch(/long connection (reconnecting|connecting)/);

    fake.ws.accept();
    await waitFor(async () => (await adapter.health()).ok);
    expect((await adapter.health()).reason).toMatch(/\d+ reconnects? so far/);
    const ann = fake.user('Ann');
    const { event } = fake.userSends({ from: ann, chat: fake.dm(ann), text: 'back again' });
    expect((await setup.deliver(event)).ack).toBe('acknowledged');
    expect(recorder.events).toMatchObject([{ kind: 'message', text: 'back again' }]);

    await adapter.stop();
    expect((await adapter.health()).ok).toBe(false);
    await waitFor(() => fake.ws.openConnections === 0);
  });
});
