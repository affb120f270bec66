/*
 * One area of the gateway's durable state (see GatewayStore in gateway-store.ts, the whole).
 * Every method returns a Promise so a networked database can implement it later. Times are
 * epoch milliseconds from the store's clock; optional values are `undefined` when absent, and in
 * patches `null` clears a value while `undefined` leaves it alone.
 */

/** Home channels: where a platform's notifications addressed to `home` go (`/sethome`). */
export interface HomeChannelStore {
  /**
   * Makes a chat the platform's home channel (`/sethome`), replacing the previous one; returns
   * the stored record.
   */
  setHomeChannel(input: HomeChannelInput): Promise<HomeChannel>;
  /** The platform's home channel, or undefined when none was set. */
  getHomeChannel(platform: string): Promise<HomeChannel | undefined>;
}

export interface HomeChannelInput {
  readonly platform: string;
  readonly chatId: string;
  readonly threadId?: string | undefined;
  /** The user id that set it. */
  readonly setBy: string;
  /** Defaults to the store clock. */
  readonly setAt?: number;
}

/** Where a platform's notifications go when they are addressed to `home`. */
export interface HomeChannel {
  readonly platform: string;
  readonly chatId: string;
  readonly threadId: string | undefined;
  readonly setBy: string;
  readonly setAt: number;
}
