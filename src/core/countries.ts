import { shared } from './shared'
import type { CountryEntry } from './types'

export type { CountryEntry } from './types'

function parse(data: string): CountryEntry[] {
  return data.split('\n').map((line) => {
    const [countryCode = '', phoneCode = '', countryName = '', countryPinyin = '', countryInitials = ''] = line.split('|')
    return { countryName, countryPinyin, phoneCode, countryCode, countryInitials }
  })
}

/**
 * The calling-code list: 中国 first, then 中国香港, 中国澳门, 中国台湾, then the rest by pinyin.
 * The data (~5 KB gzip) is a separate chunk, fetched on first call and kept for the page.
 */
export function loadCountries(): Promise<CountryEntry[]> {
  const cache = shared('countries', () => ({ list: null as Promise<CountryEntry[]> | null }))
  cache.list ??= import('./countries-data').then(
    (m) => parse(m.default),
    (error: unknown) => {
      cache.list = null // let a later call retry the chunk
      throw error
    }
  )
  return cache.list
}

/**
 * Filters by Chinese name, pinyin (full, or initials from the start), calling code (with or
 * without '+', from the start) or ISO code. Exact code matches come first, the rest keep list order.
 */
export function searchCountries(list: CountryEntry[], query: string): CountryEntry[] {
  const q = query.trim().toLowerCase().replace(/\s+/g, '')
  if (!q) return list
  const digits = q.replace(/^\+/, '')
  const numeric = /^\d+$/.test(digits)
  const exact: CountryEntry[] = []
  const rest: CountryEntry[] = []
  for (const c of list) {
    if (numeric ? c.phoneCode === digits : c.countryCode.toLowerCase() === q || c.countryName === q) exact.push(c)
    else if (numeric ? c.phoneCode.startsWith(digits) : c.countryName.includes(q) || c.countryPinyin.includes(q) || (c.countryInitials ?? '').startsWith(q))
      rest.push(c)
  }
  return [...exact, ...rest]
}
