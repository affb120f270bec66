import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { RECENT_QUANTILES, RecentTurns } from './recent-turns.js';

/** Bounds (seconds) of the turn duration histogram, and of the recent-turn figures. */
export const TURN_SECONDS_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300] as const;

export type TurnOutcome = 'answered' | 'parked' | 'failed' | 'interrupted';

export interface GatewayMetricsSources {
  /** Items waiting in the queue. */
  readonly queueDepth: () => Promise<number>;
  /** Approval requests waiting for a human. */
  readonly pendingApprovals: () => Promise<number>;
}

/**
 * The gateway's Prometheus metrics, in a registry of their own (no global default registry), so
 * tests and several gateways in one process never collide.
 */
export class GatewayMetrics {
  readonly registry = new Registry();
  readonly turns: Counter<'outcome'>;
  readonly turnSeconds: Histogram;
  readonly modelSeconds: Histogram;
  readonly deliveriesFailed: Counter<'platform'>;
  readonly inbound: Counter<'platform' | 'status'>;
  /** Turn ends of the last minutes, fed with the histogram (`observeTurn`). */
  readonly recentTurns: RecentTurns;

  constructor(sources: GatewayMetricsSources, now: () => number = Date.now) {
    this.recentTurns = new RecentTurns(TURN_SECONDS_BUCKETS, now);
    const recent = this.recentTurns;
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry, prefix: 'hermes_', eventLoopMonitoringPrecision: 20 });
    this.turns = new Counter({
      name: 'hermes_turns_total',
      help: 'Turns by outcome',
      labelNames: ['outcome'],
      registers,
    });
    this.turnSeconds = new Histogram({
      name: 'hermes_turn_duration_seconds',
      help: 'Wall time of a turn, from start to its outcome',
      buckets: [...TURN_SECONDS_BUCKETS],
      registers,
    });
    this.modelSeconds = new Histogram({
      name: 'hermes_model_request_duration_seconds',
      help: 'Latency of one model request',
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers,
    });
    this.deliveriesFailed = new Counter({
      name: 'hermes_deliveries_failed_total',
      help: 'Outbound messages given up on after retries',
      labelNames: ['platform'],
      registers,
    });
    this.inbound = new Counter({
      name: 'hermes_inbound_total',
      help: 'Inbound items by platform and what the queue did with them',
      labelNames: ['platform', 'status'],
      registers,
    });
    new Gauge({
      name: 'hermes_turns_per_minute',
      help: 'Turns that ended (any outcome) per minute, over the last 1 or 5 minutes, in this process',
      labelNames: ['window'],
      registers,
      collect() {
        for (const figures of recent.figures()) this.set({ window: figures.window }, figures.perMinute);
      },
    });
    new Gauge({
      name: 'hermes_turn_duration_recent_seconds',
      help: 'Turn latency quantiles over the last 1 or 5 minutes, from the turn duration histogram buckets as histogram_quantile computes them (absent without turns in the window)',
      labelNames: ['window', 'quantile'],
      registers,
      collect() {
        this.reset();
        for (const figures of recent.figures()) {
          const values = [figures.p50, figures.p95, figures.p99];
          RECENT_QUANTILES.forEach((q, index) => {
            const value = values[index];
            if (value !== null && value !== undefined) {
              this.set({ window: figures.window, quantile: String(q) }, value);
            }
          });
        }
      },
    });
    new Gauge({
      name: 'hermes_queue_depth',
      help: 'Items waiting for a turn',
      registers,
      async collect() {
        this.set(await sources.queueDepth().catch(() => -1));
      },
    });
    new Gauge({
      name: 'hermes_pending_approvals',
      help: 'Approval requests waiting for a human',
      registers,
      async collect() {
        this.set(await sources.pendingApprovals().catch(() => -1));
      },
    });
  }

  /** One turn ended after `seconds`: the histogram and the recent-turn figures both count it. */
  observeTurn(seconds: number): void {
    this.turnSeconds.observe(seconds);
    this.recentTurns.observe(seconds);
  }

  async render(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
