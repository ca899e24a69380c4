/** JSON in web storage, tolerant of SSR, disabled storage and garbage. */
type Area = 'localStorage' | 'sessionStorage'

function area(name: Area): Storage | null {
  try {
    return typeof window === 'undefined' ? null : window[name]
  } catch {
    return null // storage access can throw (sandboxed iframes, blocked third-party storage)
  }
}

export function readRaw(key: string, name: Area = 'localStorage'): string | null {
  try {
    return area(name)?.getItem(key) ?? null
  } catch {
    return null
  }
}

export function readJson<T>(key: string, name: Area = 'localStorage'): T | null {
  const raw = readRaw(key, name)
  if (raw === null) return null
  try {
    return JSON.parse(raw) as T
  } catch {
    return null
  }
}

export function writeJson(key: string, value: unknown): void {
  try {
    area('localStorage')?.setItem(key, JSON.stringify(value))
  } catch {
    // full or blocked: the in-memory stores still work for this page
  }
}

export function removeItem(key: string): void {
  try {
    area('localStorage')?.removeItem(key)
  } catch {
    // blocked storage has nothing to remove
  }
}
