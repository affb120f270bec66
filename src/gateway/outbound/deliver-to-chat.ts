import type { ChatAddress, PlatformAdapter } from '../../platforms/adapter.js';
import type { DeliverToChat } from '../../platforms/platform.js';
import type { Delivery } from '../delivery/create-delivery.js';
import type { HomeChannelStore } from '../store/home-channel-store.js';

/**
 * Sends a text (a webhook run's result) to a chat of a running chat platform, with delivery's
 * splitting, retries and receipts. `chat_id: home` is the chat someone made home with /sethome,
 * looked up per delivery, else the adapter's configured home channel.
 */
export function createDeliverToChat(deps: {
  readonly adapters: ReadonlyMap<string, PlatformAdapter>;
  readonly delivery: Delivery;
  readonly store: Pick<HomeChannelStore, 'getHomeChannel'>;
  readonly now: () => number;
}): DeliverToChat {
  return async (platform, chatId, text) => {
    const adapter = deps.adapters.get(platform);
    if (adapter === undefined) throw new Error(`no ${platform} platform is running`);
    let to: ChatAddress = { chatId };
    if (chatId === 'home') {
      const home = (await deps.store.getHomeChannel(platform)) ?? adapter.homeChannel;
      if (home === undefined) {
        throw new Error(
          `no home channel is set for ${platform}: send /sethome in the chat that should get these messages`,
        );
      }
      to =
        home.threadId === undefined
          ? { chatId: home.chatId }
          : { chatId: home.chatId, threadId: home.threadId };
    }
    const result = await deps.delivery.deliverText({
      adapter,
      to,
      sessionKey: `webhook-delivery:${platform}:${to.chatId}`,
      receiptKey: `webhook:${platform}:${to.chatId}:${deps.now()}`,
      text,
    });
    if (result.status === 'failed') throw new Error(result.error);
  };
}
