import { useStore } from '@nanostores/react'
import { useEffect, useMemo, useRef, useState, type ReactNode } from 'react'
import { loadCountries, searchCountries } from '../../core/countries'
import type { CountryEntry } from '../../core/types'
import type * as On from '../events'
import { $english, tr } from '../i18n'

interface CountryPickerProps {
  value: CountryEntry
  onChange: (country: CountryEntry) => void
  /** The phone field, drawn on the button's row. */
  children: ReactNode
}

/**
 * The calling-code button and its searchable list (Chinese name, pinyin, initials or code). The
 * list opens in the flow below the row, so the dialog grows instead of clipping it. In English the
 * countries have the browser's English names (`Intl.DisplayNames`), found by those too.
 */
export function CountryPicker({ value, onChange, children }: CountryPickerProps) {
  const [open, setOpen] = useState(false)
  const [countries, setCountries] = useState<CountryEntry[] | null>(null)
  const [query, setQuery] = useState('')
  const searchRef = useRef<HTMLInputElement>(null)
  const buttonRef = useRef<HTMLButtonElement>(null)
  const english = useStore($english)
  const names = useMemo(() => english && new Intl.DisplayNames('en', { type: 'region' }), [english])
  const name = (c: CountryEntry) => names?.of(c.countryCode) || c.countryName

  useEffect(() => {
    if (open && !countries) loadCountries().then(setCountries)
  }, [open, countries])

  useEffect(() => {
    if (open) searchRef.current?.focus()
  }, [open])

  const matches = useMemo(() => {
    const found = countries ? searchCountries(countries, query) : []
    const q = query.trim().toLowerCase()
    return names && q ? countries!.filter((c) => found.includes(c) || names.of(c.countryCode)!.toLowerCase().includes(q)) : found
  }, [countries, query, names])

  function close() {
    setOpen(false)
    setQuery('')
    buttonRef.current?.focus()
  }

  function handleKeyDown(event: On.Key) {
    if (open && event.key === 'Escape') {
      event.preventDefault()
      event.stopPropagation()
      close()
    }
  }

  function handlePick(country: CountryEntry) {
    onChange(country)
    close()
  }

  // Esc closes the list from wherever the focus is in it: the button, the search field, a country.
  return (
    <div>
      <div className="flex">
        <button
          ref={buttonRef}
          type="button"
          aria-expanded={open}
          aria-label={`${tr('国家或地区区号，当前')} ${name(value)} +${value.phoneCode}`}
          onClick={() => (open ? close() : setOpen(true))}
          onKeyDown={handleKeyDown}
          className="h-11 px-3 flex items-center gap-1 rounded-l-lg border border-r-0 border-line bg-raised text-ink hover:text-primary"
        >
          +{value.phoneCode}
          <svg viewBox="0 0 24 24" className="size-4 text-muted" aria-hidden="true">
            <path d="M6 9l6 6 6-6" fill="none" stroke="currentColor" strokeWidth="2" />
          </svg>
        </button>
        {children}
      </div>
      {open && (
        <div className="mt-2 rounded-xl border border-line bg-raised/40 lx-fade-in">
          <div className="p-2 border-b border-line">
            <input
              ref={searchRef}
              type="search"
              value={query}
              onInput={(e) => setQuery((e.target as HTMLInputElement).value)}
              onKeyDown={handleKeyDown}
              placeholder={tr('搜索国家/地区、拼音或区号')}
              aria-label={tr('搜索国家或地区')}
              className="w-full h-9 px-3 rounded-lg bg-raised text-ink placeholder:text-muted outline-none focus:ring-2 focus:ring-primary"
            />
          </div>
          <ul aria-label={tr('国家或地区')} className="max-h-56 overflow-y-auto py-1">
            {!countries && <li className="px-4 py-3 text-muted text-sm">{tr('加载中…')}</li>}
            {countries && matches.length === 0 && <li className="px-4 py-3 text-muted text-sm">{tr('没有匹配的国家或地区')}</li>}
            {matches.map((c) => (
              <li key={c.countryCode}>
                <button
                  type="button"
                  aria-current={c.countryCode === value.countryCode || undefined}
                  onClick={() => handlePick(c)}
                  onKeyDown={handleKeyDown}
                  className={`w-full px-4 py-2 flex justify-between text-left hover:bg-raised focus:bg-raised outline-none ${
                    c.countryCode === value.countryCode ? 'text-primary' : ''
                  }`}
                >
                  <span>{name(c)}</span>
                  <span className="text-muted">+{c.phoneCode}</span>
                </button>
              </li>
            ))}
          </ul>
        </div>
      )}
    </div>
  )
}
