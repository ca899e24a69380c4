import { expect, type Page, test } from '@playwright/test'
import { loginAs, shot } from './helpers'
import { type LingxiServer, startServer } from './server'

// Issue 19: superscripts in a reply sat on the baseline. KaTeX places a superscript with inline
// offsets (`top`, `height`, `vertical-align`) that math.ts sets through the CSSOM; the sanitiser
// had been dropping them all. Measured with bounding boxes in the chat, at both sizes.

let server: LingxiServer
test.beforeAll(async () => {
  server = await startServer()
})
test.afterAll(async () => {
  await server?.stop()
})

/** For each superscript of the reply: how far its glyph's bottom and top sit above its base's (in em of the base). */
function raised(page: Page) {
  return page
    .locator('[data-testid=message][data-role=assistant]')
    .last()
    .evaluate((reply) =>
      [...reply.querySelectorAll('.katex-html .msupsub')].map((sup) => {
        const base = sup.previousElementSibling!.getBoundingClientRect()
        const glyph = sup.querySelector('.mtight')!.getBoundingClientRect()
        const em = Number.parseFloat(getComputedStyle(sup).fontSize)
        return { bottom: (base.bottom - glyph.bottom) / em, top: (base.top - glyph.top) / em, text: sup.textContent }
      })
    )
}

for (const size of [
  { name: 'desktop', width: 1280, height: 800 },
  { name: 'phone', width: 390, height: 844 }
]) {
  test(`x² sits above the baseline in a reply (${size.name})`, async ({ page }, info) => {
    await page.setViewportSize(size)
    await page.goto(server.url + '/chat')
    await loginAs(page, server, size.name === 'desktop' ? '13700137301' : '13700137302')
    const composer = page.getByTestId('composer')
    await composer.fill('写出勾股定理的公式')
    await composer.press('Enter')
    const reply = page.locator('[data-testid=message][data-role=assistant]').last()
    await expect(reply).toHaveAttribute('data-status', 'complete', { timeout: 30_000 })
    await expect(reply.locator('.lx-math[data-done]')).toHaveCount(2)
    await page.evaluate(() => document.fonts.ready)
    await reply.locator('.katex').first().scrollIntoViewIfNeeded()
    await shot(page, info, `maths ${size.name}`)
    const sups = await raised(page)
    // a² + b² = c² and E = mc²
    expect(sups.map((s) => s.text)).toEqual(['2', '2', '2', '2'])
    for (const s of sups) {
      // KaTeX raises a superscript of a lower-case letter by 0.36em or more: its glyph box ends well above the base's
      expect(s.bottom, JSON.stringify(s)).toBeGreaterThan(0.3)
      expect(s.top, JSON.stringify(s)).toBeGreaterThan(0)
    }
    // every inline offset KaTeX asked for is in place (struts have heights)
    const struts = await reply.evaluate((el) => [...el.querySelectorAll<HTMLElement>('.katex-strut')].map((s) => s.style.height))
    expect(struts.every((h) => /em$/.test(h))).toBe(true)
  })
}
