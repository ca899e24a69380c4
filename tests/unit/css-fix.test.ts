// @ts-expect-error -- a build script in plain JS
import { fixShadowProperties } from '../../scripts/css-fix.mjs'
import { css } from '../../src/styles/generated/full'

const tailwindOutput =
  '@layer properties{@supports (((-webkit-hyphens:none)) and (not (margin-trim:inline))) or ((-moz-orient:inline) and (not (color:rgb(from red r g b)))){*,:before,:after,::backdrop{--tw-shadow:0 0 #0000;--tw-ring-shadow:0 0 #0000}}}' +
  '.shadow-lg{box-shadow:var(--tw-shadow)}' +
  '@property --tw-shadow{syntax:"*";inherits:false;initial-value:0 0 #0000}'

describe('the @property fix for shadow roots', () => {
  it('makes the initial values unconditional, matches :host, and drops @property', () => {
    const fixed: string = fixShadowProperties(tailwindOutput)
    expect(fixed).toBe(
      '@layer properties{:host,*,:before,:after,::backdrop{--tw-shadow:0 0 #0000;--tw-ring-shadow:0 0 #0000}}.shadow-lg{box-shadow:var(--tw-shadow)}'
    )
  })

  it('leaves CSS without the block alone', () => {
    expect(fixShadowProperties('.a{color:red}')).toBe('.a{color:red}')
  })

  it('was applied to the stylesheet the widgets adopt', () => {
    expect(css).not.toContain('@property')
    expect(css).not.toMatch(/@layer properties\{@supports/)
    expect(css).toContain('@layer properties{:host,*')
  })
})

describe('the split sheets (base + one per element)', () => {
  it('declare one layer order, so Tailwind defaults never outrank utilities across sheets', async () => {
    const order = '@layer properties,theme,base,components,utilities,lx-after;'
    const { css: base } = await import('../../src/styles/generated/base')
    const { css: toaster } = await import('../../src/styles/generated/toaster')
    expect(base.startsWith(order)).toBe(true)
    expect(toaster.startsWith(order)).toBe(true)
    // the element sheet carries the defaults its utilities rely on, the base sheet none
    expect(toaster).toContain('@layer properties{:host,*')
    expect(base).not.toContain('--tw-translate-x')
    // the focus ring and reduced motion (after the utilities) come once, with the base sheet
    expect(base).toContain('@layer lx-after{')
    expect(toaster).not.toContain('@layer lx-after{')
  })
})
