// The client writes no cookie (docs/decisions/0019-session-cookie.md): the session is the API's
// HttpOnly cookie. What is left here reads and deletes the readable cookies of older clients.

/** A readable cookie of this page, or null. */
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

/** Deletes a readable cookie of an older client, on this host and on `domain` (e.g. '.example.com') when given. */
export function removeCookie(name: string, domain = ''): void {
  if (typeof document === 'undefined') return
  for (const d of domain ? ['', `; domain=${domain}`] : ['']) {
    // biome-ignore lint/suspicious/noDocumentCookie: deleting an older client's readable cookie; the Cookie Store API is missing in older browsers partner pages still see
    document.cookie = `${name}=; path=/; expires=Thu, 01 Jan 1970 00:00:00 GMT${d}`
  }
}
