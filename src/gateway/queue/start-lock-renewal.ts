export type LockState = 'owned' | 'lost' | 'interrupt';

export interface LockRenewalOptions {
  readonly everyMs: number;
  readonly renew: () => Promise<LockState>;
  readonly onState: (state: LockState) => void;
  readonly onError: (error: unknown) => void;
}

/**
 * Renews a session lock on a timer chain (the next renewal is armed only after the previous one
 * answered, so a slow Redis never piles calls up). The renewal also carries the interrupt flag,
 * the fallback for a missed pub/sub message.
 */
export function startLockRenewal(options: LockRenewalOptions): { stop(): void } {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const arm = () => {
    timer = setTimeout(async () => {
      try {
        const state = await options.renew();
        if (!stopped) options.onState(state);
      } catch (error) {
        if (!stopped) options.onError(error);
      } finally {
        if (!stopped) arm();
      }
    }, options.everyMs);
  };
  arm();
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
