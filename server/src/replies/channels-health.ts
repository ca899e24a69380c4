/**
 * How each upstream channel has been doing lately, in this node's memory (not shared between nodes,
 * and empty after a restart): its last calls within WINDOW_MS (at most MAX_CALLS), and its cool-down.
 * A channel that failed `coolAfter` times in a row is cooled down for `coolMs`: tried only when no
 * other channel serves the model. After that one call decides: a success ends it, a failure cools it again.
 */
const WINDOW_MS = 10 * 60_000
const MAX_CALLS = 200

export interface HealthView {
  /** Calls in the window, and how many failed. */
  calls: number
  errors: number
  /** errors / calls, 0 without calls. */
  errorRate: number
  /** Mean time to the first chunk (or to the failure) of the window's calls, ms; null without calls. */
  latencyMs: number | null
  consecutiveFailures: number
  /** ISO time the cool-down ends; null when the channel is not cooling down. */
  cooledUntil: string | null
}

export interface ChannelHealth {
  record(id: number, call: { ok: boolean; latencyMs: number }): void
  cooling(id: number): boolean
  /** When its cool-down ends (ms), 0 when none. */
  cooledUntil(id: number): number
  view(id: number): HealthView
}

interface State {
  calls: { at: number; ok: boolean; latencyMs: number }[]
  failures: number
  cooledUntil: number
}

export function createChannelHealth(options: { now: () => number; coolAfter: number; coolMs: number }): ChannelHealth {
  const { now, coolAfter, coolMs } = options
  const states = new Map<number, State>()
  const state = (id: number) => {
    let s = states.get(id)
    if (!s) {
      s = { calls: [], failures: 0, cooledUntil: 0 }
      states.set(id, s)
    }
    const since = now() - WINDOW_MS
    while (s.calls.length > 0 && (s.calls[0]!.at < since || s.calls.length > MAX_CALLS)) s.calls.shift()
    return s
  }
  return {
    record(id, call) {
      const s = state(id)
      s.calls.push({ at: now(), ...call })
      if (call.ok) {
        s.failures = 0
        s.cooledUntil = 0
        return
      }
      s.failures++
      if (s.failures >= coolAfter) s.cooledUntil = now() + coolMs
    },
    cooling: (id) => (states.get(id)?.cooledUntil ?? 0) > now(),
    cooledUntil: (id) => states.get(id)?.cooledUntil ?? 0,
    view(id) {
      const s = state(id)
      const errors = s.calls.filter((c) => !c.ok).length
      const calls = s.calls.length
      return {
        calls,
        errors,
        errorRate: calls === 0 ? 0 : errors / calls,
        latencyMs: calls === 0 ? null : Math.round(s.calls.reduce((sum, c) => sum + c.latencyMs, 0) / calls),
        consecutiveFailures: s.failures,
        cooledUntil: s.cooledUntil > now() ? new Date(s.cooledUntil).toISOString() : null
      }
    }
  }
}
