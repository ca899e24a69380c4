import { subscribe } from 'node:diagnostics_channel'
import type { Counter, Histogram } from 'prom-client'
import { type AllowanceChange, allowanceChanges } from './channels.js'

/** The upstream metrics of one app (metrics/registry.ts). */
export interface UpstreamSink {
  readonly upstreamCalls: Counter<'provider' | 'outcome'>
  readonly upstreamDuration: Histogram<'provider' | 'outcome'>
  readonly upstreamFirstByte: Histogram<'provider'>
}

/**
 * Outgoing calls are counted where every one of them passes: fetch (undici) publishes each
 * request's life on diagnostics channels, so no upstream client needs a line for it. The provider
 * is the upstream's host (one per channel); the model is in the body, which is not looked at.
 */
interface UndiciRequest {
  origin?: string | URL
}
interface Started {
  at: number
  provider: string
  outcome?: string
}

/** Held weakly: tests make many apps in one process, and an app gone must not be kept. */
const sinks = new Set<WeakRef<UpstreamSink>>()

function* live(): Generator<UpstreamSink> {
  for (const ref of sinks) {
    const sink = ref.deref()
    if (sink) yield sink
    else sinks.delete(ref)
  }
}
const started = new WeakMap<object, Started>()
let subscribed = false

function hostOf(origin: string | URL | undefined): string {
  if (!origin) return 'unknown'
  try {
    return new URL(String(origin)).host
  } catch {
    return 'unknown'
  }
}

function outcomeOf(status: number): string {
  if (status === 429) return '429'
  return `${Math.floor(status / 100)}xx`
}

function finish(request: object, outcome: string | undefined): void {
  const call = started.get(request)
  if (!call) return
  started.delete(request)
  const labels = { provider: call.provider, outcome: outcome ?? call.outcome ?? 'error' }
  const seconds = (performance.now() - call.at) / 1000
  for (const m of live()) {
    m.upstreamCalls.inc(labels)
    m.upstreamDuration.observe(labels, seconds)
  }
}

export function watchUpstreams(metrics: UpstreamSink): void {
  sinks.add(new WeakRef(metrics))
  if (subscribed) return
  subscribed = true
  subscribe('undici:request:create', (message) => {
    const { request } = message as { request: UndiciRequest }
    started.set(request, { at: performance.now(), provider: hostOf(request.origin) })
  })
  subscribe('undici:request:headers', (message) => {
    const { request, response } = message as { request: object; response: { statusCode: number } }
    const call = started.get(request)
    if (!call) return
    call.outcome = outcomeOf(response.statusCode)
    const seconds = (performance.now() - call.at) / 1000
    for (const m of live()) m.upstreamFirstByte.observe({ provider: call.provider }, seconds)
  })
  subscribe('undici:request:trailers', (message) => finish((message as { request: object }).request, undefined))
  subscribe('undici:request:error', (message) => finish((message as { request: object }).request, 'error'))
}

/** Held weakly, like the upstream sinks. */
const allowanceSinks = new Set<WeakRef<Counter<'kind' | 'direction'>>>()
let watchingAllowances = false

/** Counts every balance-log line this process writes (a line of a transaction rolled back after it included). */
export function watchAllowances(counter: Counter<'kind' | 'direction'>): void {
  if (!watchingAllowances) {
    watchingAllowances = true
    allowanceChanges.subscribe((message) => {
      const { kind, amount } = message as AllowanceChange
      const labels = { kind, direction: amount < 0 ? 'charged' : 'granted' }
      for (const ref of allowanceSinks) {
        const sink = ref.deref()
        if (sink) sink.inc(labels, Math.abs(amount))
        else allowanceSinks.delete(ref)
      }
    })
  }
  allowanceSinks.add(new WeakRef(counter))
}
