import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'

// The theme's values are written three times (docs/decisions/0018-themes.md): the elements' sheet
// (:host([theme]) and the @theme fallbacks) and the host page's site.css (html[data-theme]).
const read = (path: string) => readFileSync(new URL(path, import.meta.url), 'utf8')
const lingxi = read('./lingxi.css')
const site = read('../host/public/site.css')

/** The `--lx-*` declarations of the first rule whose selector is `selector`. */
function values(css: string, selector: string): Record<string, string> {
  const at = css.indexOf(`${selector} {`)
  if (at < 0) throw new Error(`no rule ${selector}`)
  const body = css.slice(css.indexOf('{', at) + 1, css.indexOf('}', at))
  return Object.fromEntries([...body.matchAll(/(--lx-[\w-]+):\s*([^;]+);/g)].map((m) => [m[1], m[2]!.trim()]))
}

describe('themes', () => {
  const light = values(lingxi, ':host([theme="light"])')
  const dark = values(lingxi, ':host([theme="dark"])')

  it('sets every token in both themes', () => {
    expect(Object.keys(light)).toHaveLength(11)
    expect(Object.keys(dark)).toEqual(Object.keys(light))
  })

  it('gives the host page the light values of the elements', () => {
    expect(values(site, 'html[data-theme="light"]')).toEqual(light)
    expect(values(site, '  html[data-theme="auto"]')).toEqual(light)
    expect(values(lingxi, '    :host([theme="auto"])')).toEqual(light)
  })

  it('has the dark values as the defaults the tokens fall back to', () => {
    const fallbacks = Object.fromEntries([...lingxi.matchAll(/var\((--lx-[\w-]+), ([^)]+)\)/g)].map((m) => [m[1], m[2]]))
    for (const [name, value] of Object.entries(fallbacks)) expect(dark[name!], name).toBe(value)
    expect(fallbacks['--lx-scheme']).toBe('dark')
  })
})
