import type { Context, MiddlewareHandler } from 'hono'

/**
 * One concern of every answer's edge (security headers, CORS, no-store, the path check, the body
 * limit), split into what it does before the route and after it.
 */
export interface EdgeStep {
  /** The paths it applies to: every path when absent, else this prefix (itself, or followed by `/`). */
  under?: string
  /** Before the route: answers instead of it (a Response), refuses (throws), or lets it run (nothing). */
  before(c: Context): Response | undefined | Promise<Response | undefined>
  /** After the route, or after a later step's answer; the innermost step first, each awaited when it returns a promise. */
  after?(c: Context): void | Promise<void>
}

const applies = (step: EdgeStep, path: string) =>
  step.under === undefined || path === step.under || (path.startsWith(step.under) && path[step.under.length] === '/')

/**
 * The steps as one layer of Hono's middleware chain, in order. Each layer of the chain is an async
 * call that costs a few promises, and every promise a request makes pays for AsyncLocalStorage's
 * hooks (the request context of logger.ts) on this Node: five such layers on every API request cost
 * about 8 % of user/info's CPU (bench/cpu-request.mjs), one costs a fifth of that. What each step
 * sees is what it saw as its own middleware: a step's answer or refusal skips the later steps and
 * the route, and the steps before it still run their `after` on it (the one that answered does not).
 */
export function edge(steps: readonly EdgeStep[]): MiddlewareHandler {
  return async (c, next) => {
    const path = c.req.path
    const active = steps.filter((step) => applies(step, path))
    let ran = 0
    for (const step of active) {
      const result = step.before(c)
      const answer = result instanceof Promise ? await result : result
      if (answer) {
        c.res = answer
        const done = runAfter(c, active, ran)
        if (done) await done
        return c.res
      }
      ran++
    }
    await next()
    const done = runAfter(c, active, ran)
    if (done) await done
  }
}

/** The `after` of the first `ran` steps, the last first; a promise only when one of them returns one. */
function runAfter(c: Context, steps: readonly EdgeStep[], ran: number): Promise<void> | undefined {
  for (let i = ran - 1; i >= 0; i--) {
    const done = steps[i]!.after?.(c)
    if (done instanceof Promise) return done.then(() => runAfter(c, steps, i))
  }
  return undefined
}
