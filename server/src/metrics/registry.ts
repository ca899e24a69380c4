import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client'
import { dbPool } from '../db/pool-gauge.js'
import type { JobDepth } from '../jobs/queue.js'
import { type UpstreamSink, watchAllowances, watchUpstreams } from './upstream.js'

/** Seconds; from a cached 304 to a long upload. */
const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]
/** Seconds; a database query. */
const DB_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5]
/** Seconds; model calls take longer. */
const UPSTREAM_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 120]

export interface MetricsSources {
  /** How many event streams are open on this node now. */
  openStreams?: () => number
  /** Background jobs by name and state (jobs/queue.ts). */
  jobDepths?: () => Promise<JobDepth[]>
}

/** The metrics of one app: a registry of its own (tests make several apps in one process). */
/**
 * process_*, nodejs_* (heap, GC, handles) and nodejs_eventloop_lag_seconds with its percentiles: one
 * registry per process (they describe the process, and each collector keeps an event-loop monitor running).
 */
let processRegistry: Registry | undefined
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry()
    collectDefaultMetrics({ register: processRegistry, eventLoopMonitoringPrecision: 20 })
    databaseMetrics(processRegistry)
  }
  return processRegistry
}

/** The database pool (db/pool-gauge.ts): of the process, like its databases. */
function databaseMetrics(registry: Registry): void {
  const registers = [registry]
  new Gauge({
    name: 'lingxi_db_pool_max',
    help: 'Connections the database pool of this process may open (PostgreSQL: 10 per node; the embedded PGlite: 1)',
    registers,
    collect() {
      this.set(dbPool.max)
    }
  })
  new Gauge({
    name: 'lingxi_db_queries_in_flight',
    help: 'Database queries running or waiting for a connection now; above lingxi_db_pool_max, queries queue',
    registers,
    collect() {
      this.set(dbPool.inFlight)
    }
  })
  const seconds = new Histogram({
    name: 'lingxi_db_query_seconds',
    help: 'Database queries from asking (including the wait for a connection) to the answer',
    buckets: DB_BUCKETS,
    registers
  })
  dbPool.observe = (s) => seconds.observe(s)
}

export interface Metrics extends UpstreamSink {
  /** This app's series. */
  readonly registry: Registry
  /** The exposition /metrics answers: the process's series and this app's. */
  text(): Promise<string>
  readonly contentType: string
  readonly requests: Counter<'method' | 'route' | 'status'>
  readonly duration: Histogram<'method' | 'route' | 'status'>
}

export function createMetrics(sources: MetricsSources = {}): Metrics {
  const registry = new Registry()
  const registers = [registry]
  const requests = new Counter({
    name: 'lingxi_http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers
  })
  const duration = new Histogram({
    name: 'lingxi_http_request_duration_seconds',
    help: 'Time to the response head (event streams: until they open), by method, route pattern and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: HTTP_BUCKETS,
    registers
  })
  new Gauge({
    name: 'lingxi_sse_open_streams',
    help: 'Event streams (SSE) open on this node',
    registers,
    collect() {
      this.set(sources.openStreams?.() ?? 0)
    }
  })
  new Gauge({
    name: 'lingxi_job_queue_jobs',
    help: 'Background jobs by name and state (waiting, delayed, active); with Redis (BullMQ), of every node',
    labelNames: ['name', 'state'] as const,
    registers,
    async collect() {
      this.reset()
      // Redis away: the gauge is empty rather than /metrics failing.
      const depths = await (sources.jobDepths?.() ?? Promise.resolve([])).catch(() => [])
      for (const d of depths) for (const state of ['waiting', 'delayed', 'active'] as const) this.set({ name: d.name, state }, d[state])
    }
  })
  const upstreamCalls = new Counter({
    name: 'lingxi_upstream_requests_total',
    help: 'Outgoing HTTP calls (model, painting, music, SMS, payment upstreams) by provider host and outcome (2xx, 4xx, 429, 5xx, error)',
    labelNames: ['provider', 'outcome'] as const,
    registers
  })
  const upstreamDuration = new Histogram({
    name: 'lingxi_upstream_request_duration_seconds',
    help: 'Outgoing HTTP calls from the request to the end of the body (a streamed reply: its whole length)',
    labelNames: ['provider', 'outcome'] as const,
    buckets: UPSTREAM_BUCKETS,
    registers
  })
  const upstreamFirstByte = new Histogram({
    name: 'lingxi_upstream_time_to_first_byte_seconds',
    help: 'Outgoing HTTP calls from the request to the response head (a streamed model reply: about the time to its first token)',
    labelNames: ['provider'] as const,
    buckets: UPSTREAM_BUCKETS,
    registers
  })
  const allowanceAmount = new Counter({
    name: 'lingxi_allowance_amount_total',
    help: 'Allowance moved through the balance log, by kind (tokens, mj, suno, …) and direction (charged; granted: cards, payments, refunds, operators)',
    labelNames: ['kind', 'direction'] as const,
    registers
  })
  watchAllowances(allowanceAmount)
  const shared = processMetrics()
  const metrics: Metrics = {
    registry,
    async text() {
      return `${await shared.metrics()}\n${await registry.metrics()}`
    },
    contentType: registry.contentType,
    requests,
    duration,
    upstreamCalls,
    upstreamDuration,
    upstreamFirstByte
  }
  watchUpstreams(metrics)
  return metrics
}
