import { readFileSync } from 'node:fs'
import { expect, type Page, test } from '@playwright/test'
import katex from 'katex'
import { loginAs, shot } from './helpers'
import { type LingxiServer, startServer } from './server'

// Issue 19: superscripts in a reply sat on the baseline. KaTeX places a superscript with inline
// offsets (`top`, `height`, `vertical-align`) that math.ts sets through the CSSOM; the sanitiser
// had been dropping them all. Measured with bounding boxes in the chat, at both sizes, and
// compared with the same formulas laid out by KaTeX alone (its own katex.css, its fonts, a plain
// page): whatever the chat's styles (the markdown sheet, the widget's base styles) do to KaTeX's
// classes shows as a difference.

let server: LingxiServer
test.beforeAll(async () => {
  server = await startServer()
})
test.afterAll(async () => {
  await server?.stop()
})

/** For each superscript in `root`: how far its glyph's bottom and top sit above its base's (in em of the base). */
function raised(page: Page, root = page.locator('[data-testid=message][data-role=assistant]').last()) {
  return root.evaluate((el) =>
    [...el.querySelectorAll('.katex-html .msupsub')].map((sup) => {
      const base = sup.previousElementSibling!.getBoundingClientRect()
      const glyph = sup.querySelector('.mtight')!.getBoundingClientRect()
      const em = Number.parseFloat(getComputedStyle(sup).fontSize)
      return { bottom: (base.bottom - glyph.bottom) / em, top: (base.top - glyph.top) / em, text: sup.textContent }
    })
  )
}

/**
 * The demo's two formulas laid out by KaTeX alone: its stylesheet as published (fonts from
 * Lingxi's CDN, served on the same origin), 14px text as in a reply, no other style.
 */
async function reference(page: Page, server: LingxiServer) {
  const css = readFileSync(new URL('../../node_modules/katex/dist/katex.min.css', import.meta.url), 'utf8').replace(
    /url\(fonts\//g,
    `url(${server.url}/cdn/fonts/katex/`
  )
  const html = `<!doctype html><meta charset="utf-8"><style>${css}</style><body style="font:14px/1.75 sans-serif;margin:16px"><p>勾股定理：${katex.renderToString('a^2 + b^2 = c^2')}</p>${katex.renderToString('E = mc^2', { displayMode: true })}</body>`
  const url = `${server.url}/katex-reference`
  await page.route(url, (route) => route.fulfill({ contentType: 'text/html; charset=utf-8', body: html }))
  await page.goto(url)
  await page.evaluate(() => document.fonts.ready)
  return raised(page, page.locator('body'))
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
    // close up, for a person to look at (LX_SHOTS, helpers.ts)
    if (process.env.LX_SHOTS)
      await reply
        .locator('p:has(.katex)')
        .first()
        .screenshot({ path: `${process.env.LX_SHOTS}/maths-close-${size.name}.png` })

    // The same as KaTeX alone, to a twentieth of an em.
    const own = await reference(page, server)
    expect(own.map((s) => s.text)).toEqual(['2', '2', '2', '2'])
    for (const [i, s] of sups.entries()) {
      expect(Math.abs(s.bottom - own[i]!.bottom), `${JSON.stringify(s)} vs KaTeX ${JSON.stringify(own[i])}`).toBeLessThan(0.05)
      expect(Math.abs(s.top - own[i]!.top), `${JSON.stringify(s)} vs KaTeX ${JSON.stringify(own[i])}`).toBeLessThan(0.05)
    }
    if (process.env.LX_SHOTS) await page.locator('p').screenshot({ path: `${process.env.LX_SHOTS}/maths-close-katex-alone-${size.name}.png` })
  })
}
