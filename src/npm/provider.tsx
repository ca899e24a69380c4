import { useEffect, type ReactNode } from 'react'
import { startSession } from '../core/auth'
import { configure } from '../core/config'

export interface LingxiProviderProps {
  /** The Lingxi API origin, e.g. `https://ai.example.com` ('' = this page's origin). */
  api: string
  /** Parent domain for the session cookies, when the site spans subdomains. */
  cookieDomain?: string
  children?: ReactNode
}

/** Points every Lingxi component below it at one API and starts the shared session. */
export function LingxiProvider({ api, cookieDomain = '', children }: LingxiProviderProps) {
  useEffect(() => {
    configure({ apiBase: api.replace(/\/+$/, ''), cookieDomain })
    startSession()
  }, [api, cookieDomain])
  return <>{children}</>
}
