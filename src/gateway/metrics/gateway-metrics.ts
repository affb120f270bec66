import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

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

  constructor(sources: GatewayMetricsSources) {
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
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300],
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

  async render(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
