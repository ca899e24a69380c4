import { getBoot } from '../boot'

// Where links may point and images may load from. Shared by the renderer (which builds links and
// images itself) and the lazy sanitiser of KaTeX and mermaid output.

/** Absolute http(s)/mailto URL → its normalised form; anything else (relative, javascript:, data: …) → null. */
export function safeLinkUrl(value: string | null | undefined): string | null {
  try {
    // parsed as a browser would (it drops tabs and newlines, lowercases the scheme); relative fails
    const url = new URL(value!.trim()).href
    return /^(https?|mailto):/.test(url) ? url : null
  } catch {
    return null
  }
}

/**
 * Where images may load from without a click: the API's own `/files/` (Lingxi re-hosts every
 * generated or uploaded image there, so loading it tells no third party anything). Everything
 * else stays a placeholder link.
 */
export function filesBase(): string {
  return new URL(`${(getBoot().apiBase ?? '').replace(/\/+$/, '')}/files/`, typeof location === 'undefined' ? 'http://localhost/' : location.href).href
}

/**
 * `src` resolved against `base` (an http(s) URL ending in `/`, see filesBase) when the result
 * lies under it (its normalised form, `..` resolved, starts with it, and no encoded slash could
 * climb out on the server), else ''.
 */
export function localFile(src: string, base = filesBase()): string {
  try {
    const href = new URL(src.trim(), base).href
    return href.startsWith(base) && !/%2f|%5c/i.test(href) ? href : ''
  } catch {
    return ''
  }
}
