import { map } from 'nanostores'
import { shared } from './shared'
import { $token } from './stores'

interface Handoff {
  value: unknown
  /** The session it was left in: another account never takes it. */
  token: string | null
}

/**
 * What one tool leaves for another, by the receiving tool's name (the role repository leaves the
 * topic it started for the chat). A page-wide store, so it waits while the receiver's code loads,
 * and a receiver already on the page hears it at once.
 */
export const $handoffs = /* @__PURE__ */ shared('$handoffs', () => map<Record<string, Handoff>>({}))

/** Leaves `value` for the tool named `to` (replacing what it had not taken yet). */
export function handOff(to: string, value: unknown): void {
  $handoffs.setKey(to, { value, token: $token.get() })
}

/** What was left for the tool named `to`, once (undefined when nothing, or left by another session). */
export function takeHandoff(to: string): unknown {
  const entry = $handoffs.get()[to]
  if (!entry) return undefined
  const { [to]: _, ...rest } = $handoffs.get()
  $handoffs.set(rest)
  return entry.token === $token.get() ? entry.value : undefined
}
