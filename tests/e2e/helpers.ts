import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import AxeBuilder from '@axe-core/playwright'
import { type BrowserContext, expect, type Page, type TestInfo } from '@playwright/test'
import type { LingxiServer } from './server'

/** Attaches a screenshot of the viewport to the test report. */
export async function shot(page: Page, info: TestInfo, name: string) {
  await info.attach(name, { body: await page.screenshot({ fullPage: false }), contentType: 'image/png' })
}

/**
 * A screenshot attached to the report and, for a look outside it, written to `$LX_SHOTS` (when
 * set) as `<prefix><name>.png`.
 */
export async function snap(page: Page, info: TestInfo, name: string, prefix = '') {
  const body = await page.screenshot()
  await info.attach(name, { body, contentType: 'image/png' })
  const dir = process.env.LX_SHOTS
  if (!dir) return
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, `${prefix}${name.replace(/[^\w\u4e00-\u9fff]+/g, '-')}.png`), body)
}

/**
 * Waits for the page's finite animations and transitions (shadow roots included) to end: a dialog
 * still fading in has blended colours, and axe would measure their contrast.
 */
export async function settled(page: Page) {
  await page.evaluate(() =>
    Promise.all(
      document
        .getAnimations()
        .filter((a) => Number.isFinite(Number(a.effect?.getComputedTiming().endTime)))
        .map((a) => a.finished.catch(() => {}))
    )
  )
}

/** The axe rules of a11y.spec.ts: no critical or serious violation on the page as it is. */
export async function axe(page: Page, where: string) {
  await settled(page)
  const result = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice']).analyze()
  const bad = result.violations
    .filter((v) => v.impact === 'critical' || v.impact === 'serious')
    .map((v) => `${where}: ${v.id} ${v.nodes.map((n) => n.target.join(' >>> ')).join(', ')}`)
  expect(bad).toEqual([])
}

/** Logs in through the dialog with the code the console SMS provider printed. */
export async function loginAs(page: Page, server: LingxiServer, phone: string, info?: TestInfo) {
  const dialog = page.getByRole('dialog', { name: '手机号登录' })
  if (!(await dialog.isVisible())) await page.getByRole('banner').getByRole('button', { name: '登录' }).click()
  await expect(dialog).toBeVisible()
  await dialog.getByLabel('手机号').fill(phone)
  await dialog.getByRole('checkbox').check()
  const mark = server.output().length
  await dialog.getByRole('button', { name: '获取验证码' }).click()
  await expect(dialog.getByTestId('masked-phone')).toHaveText(`+86 ${phone.slice(0, 3)}****${phone.slice(-4)}`)
  if (info) await shot(page, info, 'login step 2')
  const code = await server.smsCode(phone, mark)
  await dialog.getByLabel('验证码').fill(code)
  await dialog.getByRole('button', { name: '登录', exact: true }).click()
  await expect(page.getByText('登录成功！')).toBeVisible()
  await expect(dialog).toBeHidden()
}

/** A token for API calls made by the test itself (not through the page). */
export async function apiLogin(server: LingxiServer, phone: string): Promise<string> {
  const post = (path: string, body: object) =>
    fetch(server.url + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }).then((r) => r.json())
  const mark = server.output().length
  expect((await post('/api/v1/auth/send-sms-code', { enCode: '86', phone, smsType: 'LOGIN', imgVerifyState: 1 })).code).toBe(2000)
  const code = await server.smsCode(phone, mark)
  const res = await post('/api/v1/auth/login', { enCode: '86', phone, code, platform: 'PC' })
  return res.data.accessToken
}

/**
 * Signs a browser context in with `token` (from apiLogin) before its first page, as a login inside
 * `pageUrl` would have left it (docs/decisions/0019-session-cookie.md): the API origin's HttpOnly
 * `lingxi_session` cookie — partitioned by the page's site when the page is on another site — and
 * the stored user info on the page's origin, the hint that makes a page look for its session. The
 * same token keeps working as the test's own bearer.
 */
export async function addSession(context: BrowserContext, server: LingxiServer, token: string, pageUrl: string = server.url) {
  const page = new URL(pageUrl)
  const api = new URL(server.url)
  // Loopback hosts are their own sites: another host name is another site (localhost vs 127.0.0.1).
  const crossSite = page.hostname !== api.hostname || page.protocol !== api.protocol
  await context.addCookies([
    {
      name: 'lingxi_session',
      value: token,
      domain: api.hostname,
      path: '/api/',
      httpOnly: true,
      secure: true,
      sameSite: 'None',
      ...(crossSite ? { partitionKey: `${page.protocol}//${page.hostname}` } : {})
    }
  ])
  const res = await fetch(`${server.url}/api/v1/user/info`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, origin: page.origin },
    body: '{}'
  }).then((r) => r.json())
  expect(res.code).toBe(2000)
  // Once per tab, on the page's origin only (a logout in the test is not undone by the next navigation).
  await context.addInitScript(
    ([origin, info]) => {
      try {
        if (location.origin !== origin || sessionStorage.getItem('lingxi-e2e-session')) return
        sessionStorage.setItem('lingxi-e2e-session', '1')
        localStorage.setItem('lingxi-user-info', info)
      } catch {
        // storage refused (an opaque origin): nothing to seed
      }
    },
    [page.origin, JSON.stringify(res.data)] as const
  )
}

/** The bearer of the page's session, for API calls made by the test (the page itself holds none). */
export async function sessionToken(page: Page, server: LingxiServer): Promise<string> {
  const host = new URL(server.url).hostname
  const cookie = (await page.context().cookies()).find((c) => c.name === 'lingxi_session' && c.domain === host)
  expect(cookie, 'the page has a session cookie').toBeTruthy()
  return cookie!.value
}

/** What `user/info` answers for the page's own session (API.md), as the tests read it. */
export interface PageUserInfo {
  tokens: number
  mjCount: number
  sunoCount: number
  nickName: string
  avatarUrl: string
}

/** `user/info` fetched by the page itself: its HttpOnly session cookie, with the CSRF header (ADR 0019). */
export async function pageUserInfo(page: Page): Promise<PageUserInfo> {
  return page.evaluate(async () => {
    const res = await fetch('/api/v1/user/info', {
      method: 'POST',
      credentials: 'include',
      headers: { 'content-type': 'application/json', 'x-lingxi-request': '1' },
      body: '{}'
    })
    return (await res.json()).data as PageUserInfo
  })
}
