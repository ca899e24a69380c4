import { afterEach, describe, expect, it } from 'vitest'
import { pageTheme, setTheme } from './theme'
import { THEME_KEY } from './wire'

afterEach(() => {
  delete document.documentElement.dataset.theme
  localStorage.clear()
})

describe('theme', () => {
  it('is null on a page without one (not the host page)', () => {
    expect(pageTheme()).toBeNull()
    document.documentElement.dataset.theme = 'sepia'
    expect(pageTheme()).toBeNull()
  })

  it('applies a choice to the page and remembers it for theme.js', () => {
    document.documentElement.dataset.theme = 'dark'
    setTheme('light')
    expect(document.documentElement.dataset.theme).toBe('light')
    expect(pageTheme()).toBe('light')
    expect(localStorage.getItem(THEME_KEY)).toBe('light')
    setTheme('auto')
    expect(pageTheme()).toBe('auto')
    expect(localStorage.getItem(THEME_KEY)).toBe('auto')
  })
})
