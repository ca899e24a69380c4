// @vitest-environment happy-dom
import { applyStyles, renderTex } from './math'

// KaTeX's inline styles under a strict CSP: never parsed as style attributes, set through the CSSOM.

const sanitized = vi.hoisted(() => ({ markup: [] as string[] }))
vi.mock('./sanitize', async (importOriginal) => {
  const original = await importOriginal<typeof import('./sanitize')>()
  return {
    ...original,
    sanitize: (html: string, doc: Document, mode: 'math' | 'svg') => {
      sanitized.markup.push(html)
      return original.sanitize(html, doc, mode)
    }
  }
})

describe('renderTex', () => {
  it('never hands the parser a style attribute, and sets KaTeX styles through the CSSOM', () => {
    const fragment = renderTex('\\frac{a}{b^2}', true, document)
    expect(sanitized.markup.at(-1)).toContain('data-lx-style="')
    expect(sanitized.markup.at(-1)).not.toMatch(/\sstyle="/)
    expect(fragment.querySelector('[data-lx-style]')).toBeNull()
    const struts = [...fragment.querySelectorAll<HTMLElement>('.katex-strut')]
    expect(struts.length).toBeGreaterThan(0)
    expect(struts.every((s) => /^\d*\.?\d+em$/.test(s.style.height))).toBe(true)
    expect([...fragment.querySelectorAll<HTMLElement>('.vlist > span')].some((s) => s.style.top !== '')).toBe(true)
  })

  it('keeps TeX that spells a style attribute as text', () => {
    const fragment = renderTex('\\text{ style="color:red"}', false, document)
    expect(fragment.textContent).toContain('style="color:red"')
    expect(fragment.querySelector('[data-lx-style], [style*="red"]')).toBeNull()
  })
})

describe('applyStyles', () => {
  it('drops a style that could fetch', () => {
    const template = document.createElement('template')
    template.innerHTML = '<span data-lx-style="height:1em">a</span><span data-lx-style="background:url(//evil.example/p.png)">b</span>'
    const fragment = template.content
    applyStyles(fragment)
    const [a, b] = [...fragment.querySelectorAll<HTMLElement>('span')]
    expect(a!.style.height).toBe('1em')
    expect(b!.getAttribute('style')).toBeNull()
    expect(fragment.querySelector('[data-lx-style]')).toBeNull()
  })
})
