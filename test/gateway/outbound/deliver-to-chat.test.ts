import { afterEach, describe, expect, it } from 'vitest';
import { createDelivery } from '../../../src/gateway/delivery/create-delivery.js';
import { createDeliverToChat } from '../../../src/gateway/outbound/deliver-to-chat.js';
import { createTestAdapter } from '../../../src/platforms/test-adapter/create-test-adapter.js';
import { silentLogger } from '../../helpers/test-config.js';
import { manualClock, storeFixture } from '../store/store-fixture.js';

const fixture = storeFixture();
afterEach(() => fixture.cleanup());

describe('deliverToChat (webhook results to a chat)', () => {
  function setup(homeChannel?: { chatId: string }) {
    const clock = manualClock();
    const store = fixture.fresh(clock);
    const adapter = { ...createTestAdapter(), ...(homeChannel !== undefined ? { homeChannel } : {}) };
    const deliver = createDeliverToChat({
      adapters: new Map([['test', adapter]]),
      delivery: createDelivery({ store, logger: silentLogger, now: clock.now }),
      store,
      now: clock.now,
    });
    return { store, adapter, deliver };
  }

  it('sends to the chat named, and refuses a platform that is not running', async () => {
    const { adapter, deliver } = setup();
    await deliver('test', 'ops', 'build is green');
    expect(adapter.texts('ops')).toEqual(['build is green']);
    await expect(deliver('discord', 'ops', 'x')).rejects.toThrow(/no discord platform is running/);
  });

  it('`home` is the chat set with /sethome, else the configured home channel, else an error', async () => {
    const bare = setup();
    await expect(bare.deliver('test', 'home', 'x')).rejects.toThrow(/no home channel is set for test/);

    const configured = setup({ chatId: 'configured-room' });
    await configured.deliver('test', 'home', 'to the configured home');
    expect(configured.adapter.texts('configured-room')).toEqual(['to the configured home']);
    await configured.store.setHomeChannel({ platform: 'test', chatId: 'chosen-room', setBy: 'u1' });
    await configured.deliver('test', 'home', 'to the chosen home');
    expect(configured.adapter.texts('chosen-room')).toEqual(['to the chosen home']);
  });
});
