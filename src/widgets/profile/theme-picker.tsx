import { useState } from 'react'
import { pageTheme, setTheme, type Theme } from '../../core/theme'

const THEME_OPTIONS: [Theme, string][] = [
  ['dark', '深色'],
  ['light', '浅色'],
  ['auto', '跟随系统']
]

/** The host page's theme, as a radio group (arrow keys move the choice); not shown on pages without one. */
export function ThemePicker() {
  const [theme, setChoice] = useState(pageTheme)
  if (!theme) return null
  return (
    <fieldset className="mt-5">
      <legend className="mb-2 text-xs text-muted">外观</legend>
      <div className="flex flex-wrap gap-x-5">
        {THEME_OPTIONS.map(([value, label]) => (
          <label key={value} className="flex items-center gap-2 h-9 text-sm cursor-pointer">
            <input
              type="radio"
              name="theme"
              value={value}
              checked={theme === value}
              onChange={() => {
                setTheme(value)
                setChoice(value)
              }}
              className="size-4 accent-primary"
            />
            {label}
          </label>
        ))}
      </div>
    </fieldset>
  )
}
