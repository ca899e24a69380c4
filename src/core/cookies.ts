export interface CookieOptions {
  /** Lifetime; omitted = session cookie. */
  days?: number
  /** e.g. '.example.com' to share with sibling hosts; '' or omitted = this host only. */
  domain?: string
}

export function getCookie(name: string): string | null {
  if (typeof document === 'undefined') return null
  for (const part of document.cookie.split(';')) {
    const i = part.indexOf('=')
    if (i > -1 && part.slice(0, i).trim() === name) {
      try {
        return decodeURIComponent(part.slice(i + 1).trim())
      } catch {
        return part.slice(i + 1).trim()
      }
    }
  }
  return null
}

export function setCookie(name: string, value: string, { days, domain }: CookieOptions = {}): void {
  if (typeof document === 'undefined') return
  let cookie = `${name}=${encodeURIComponent(value)}; path=/; SameSite=Lax`
  if (days !== undefined) cookie += `; expires=${new Date(Date.now() + days * 864e5).toUTCString()}`
  if (domain) cookie += `; domain=${domain}`
  if (location.protocol === 'https:') cookie += '; Secure'
  // biome-ignore lint/suspicious/noDocumentCookie: the one writer of Lingxi's cookies; the Cookie Store API is async and missing in older browsers partner pages still see, and the token must be set before the next request
  document.cookie = cookie
}

export function removeCookie(name: string, { domain }: Pick<CookieOptions, 'domain'> = {}): void {
  setCookie(name, '', { days: -1, domain })
  // A cookie written before cookieDomain was configured lives on the bare host.
  if (domain) setCookie(name, '', { days: -1 })
}
