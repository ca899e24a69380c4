import { css as chatCss } from '../styles/generated/chat'
import { rest as chatRest } from '../styles/generated/chat.rest'
import { extendCss } from './extend-css'
import { adoptStyles, registerCss, stylesheets, texts } from './styles'

const splice = (css: string, rest: [number, string][]) => {
  let out = ''
  let at = 0
  for (const [offset, text] of rest) {
    out += css.slice(at, offset) + text
    at = offset
  }
  return out + css.slice(at)
}

describe("the chat's sheet and its deferred rules (scripts/build-css.mjs)", () => {
  it('leaves the rules only the deferred parts use out of the sheet in the entry, and gives them back in place', () => {
    // w-72: the settings popover; the launcher's and the panel's rules stay in
    expect(chatCss).not.toContain('.w-72{')
    expect(chatCss).toContain('.sm\\:w-\\[400px\\]{')
    const full = splice(chatCss, chatRest)
    expect(full).toContain('.w-72{')
    // in Tailwind's order: the settings' width comes before the panel's full width
    expect(full.indexOf('.w-72{')).toBeLessThan(full.indexOf('.w-full{'))
    expect(chatRest.every(([offset], i) => offset <= chatCss.length && (i === 0 || offset > chatRest[i - 1]![0]))).toBe(true)
  })
})

describe('extendCss', () => {
  it("completes a tag's adopted sheet in place: roots that adopted it and later ones see every rule in order", () => {
    registerCss('lx-extend-a', '.a{color:red}.c{color:blue}')
    const host = document.body.appendChild(document.createElement('div'))
    const root = host.attachShadow({ mode: 'open' })
    adoptStyles(root, 'lx-extend-a')
    const sheet = stylesheets().get('.a{color:red}.c{color:blue}')
    expect(sheet && root.adoptedStyleSheets.includes(sheet)).toBe(true)

    extendCss('lx-extend-a', [[13, '.b{color:green}']])
    expect(texts().get('lx-extend-a')).toBe('.a{color:red}.b{color:green}.c{color:blue}')
    expect([...sheet!.cssRules].map((r) => (r as CSSStyleRule).selectorText)).toEqual(['.a', '.b', '.c'])
    // a later root adopts the same, completed sheet
    const later = document.body.appendChild(document.createElement('div')).attachShadow({ mode: 'open' })
    adoptStyles(later, 'lx-extend-a')
    expect(later.adoptedStyleSheets.includes(sheet!)).toBe(true)
    // once per tag
    extendCss('lx-extend-a', [[0, '.z{color:black}']])
    expect(texts().get('lx-extend-a')).toBe('.a{color:red}.b{color:green}.c{color:blue}')
  })

  it('rewrites the <style> of roots without adoptedStyleSheets', () => {
    registerCss('lx-extend-b', '.a{}.c{}')
    const root = document.createDocumentFragment() as unknown as ShadowRoot
    adoptStyles(root, 'lx-extend-b')
    const own = [...(root as unknown as DocumentFragment).querySelectorAll('style')].at(-1)!
    expect(own.textContent).toBe('.a{}.c{}')
    extendCss('lx-extend-b', [[4, '.b{}']])
    expect(own.textContent).toBe('.a{}.b{}.c{}')
  })

  it('does nothing for a tag registered with another sheet (the npm package, the tests) or none', () => {
    registerCss('lx-extend-c', '.a{}')
    extendCss('lx-extend-c', [[40, '.b{}']])
    expect(texts().get('lx-extend-c')).toBe('.a{}')
    extendCss('lx-extend-unknown', [[0, '.b{}']])
    expect(texts().has('lx-extend-unknown')).toBe(false)
  })
})
