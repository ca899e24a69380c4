import { map } from 'nanostores'
import { anchor, shared } from './shared'

export interface Config {
  /** API origin; '' = the page's own origin. */
  apiBase: string
  /** Parent domain for the session cookies; '' = the page's host. */
  cookieDomain: string
  /** Sent as `platform` at login; default: detected from the user agent. */
  platform?: 'PC' | 'H5'
}

/** Starts from what the loader read off its script tag (`anchor.boot`), if anything. */
export const $config = shared('$config', () => {
  const boot = anchor().boot ?? {}
  return map<Config>({
    apiBase: (boot.apiBase ?? '').replace(/\/+$/, ''),
    cookieDomain: boot.cookieDomain ?? ''
  })
})

export function configure(partial: Partial<Config>): void {
  const next = { ...$config.get(), ...partial }
  next.apiBase = next.apiBase.replace(/\/+$/, '')
  $config.set(next)
}
