import { expect, test, type Page } from '@playwright/test'
import { completeLogin, loginDialog, openDialogs, page as examplePage, snap } from './embed-helpers'
import { startPartner, startServer, type LingxiServer } from './server'

// examples/cms.html: lingxi-* tags pasted into an article — in a table cell, a <details>, a figure,
// one added later by a script, one inside another library's shadow root — all on one login.

let server: LingxiServer
let cms: Awaited<ReturnType<typeof startPartner>>

test.beforeAll(async () => {
  cms = await startPartner(() => examplePage('cms.html', server))
  server = await startServer({ CORS_ORIGINS: cms.url })
})
test.afterAll(async () => {
  await server?.stop()
  await cms?.stop()
})

const cellLogin = (p: Page) => p.locator('td lingxi-login')
const lateLogin = (p: Page) => p.locator('lingxi-login.late')
const inlineChat = (p: Page) => p.locator('figure lingxi-chat')
const bubble = (p: Page) => p.locator('#bubble')
const cardProfile = (p: Page) => p.locator('acme-card lingxi-profile')
const headerProfile = (p: Page) => p.locator('.masthead lingxi-profile')

async function logIn(page: Page, phone: string) {
  await cellLogin(page).getByRole('button', { name: '登录', exact: true }).click()
  await expect.poll(() => openDialogs(page)).toEqual(['手机号登录'])
  await completeLogin(page, server, phone)
}

test('tags anywhere in the markup work: later ones, one in a foreign shadow root, a property set before definition', async ({ page }, info) => {
  const errors: string[] = []
  page.on('pageerror', (e) => errors.push(e.message))
  await page.goto(cms.url)
  await expect(cellLogin(page).getByRole('button', { name: '登录', exact: true })).toBeVisible()
  await expect(inlineChat(page).getByRole('heading', { name: '登录后开始对话' })).toBeVisible()
  // added by a script 600 ms after load
  await expect(lateLogin(page).getByRole('button', { name: '登录', exact: true })).toBeVisible()
  // inside <acme-card>'s shadow root, loaded through lingxi('load', root)
  await expect.poll(() => page.evaluate(() => !!document.querySelector('acme-card')!.shadowRoot!.querySelector('lingxi-profile')!.shadowRoot)).toBe(true)
  // the greeting property was set before lingxi-chat was defined, and kept
  await expect(bubble(page)).toHaveAttribute('data-defined-when-set', 'false')
  await expect(bubble(page).locator('[part=greeting]')).toContainText('期末加油！有问题问我')
  expect(await bubble(page).evaluate((el) => (el as HTMLElementTagNameMap['lingxi-chat']).greeting)).toBe('期末加油！有问题问我')
  // the page has its own toaster: the loader adds none
  expect(await page.locator('lingxi-toaster').count()).toBe(1)
  await snap(page, info, 'cms')
  expect(errors).toEqual([])
})

test('attributes changed after render take effect', async ({ page }) => {
  await page.goto(cms.url)
  const button = cellLogin(page).getByRole('button', { name: '登录', exact: true })
  await expect(button).toBeVisible()
  await page.getByLabel('显示登录按钮').uncheck()
  await expect(button).toHaveCount(0)
  await page.getByLabel('显示登录按钮').check()
  await expect(button).toBeVisible()

  const launcher = bubble(page).locator('[part=launcher]')
  await expect(launcher).toBeVisible()
  expect((await launcher.boundingBox())!.x).toBeGreaterThan(1000)
  await page.getByLabel('换一套配色').check()
  await expect.poll(() => launcher.evaluate((el) => getComputedStyle(el).backgroundColor)).toBe('rgb(22, 119, 255)')
  // a light ink on the dark blue
  await expect.poll(() => launcher.evaluate((el) => getComputedStyle(el).color)).toBe('rgb(255, 255, 255)')
  await expect.poll(async () => (await launcher.boundingBox())!.x).toBeLessThan(100)
  await page.getByLabel('换一套配色').uncheck()
  await expect.poll(() => launcher.evaluate((el) => getComputedStyle(el).backgroundColor)).toBe('rgb(251, 171, 0)')
})

test('one login for every element: logging in anywhere updates all, logging out from the profile logs all out', async ({ page }, info) => {
  await page.goto(cms.url)
  await expect(lateLogin(page).getByRole('button', { name: '登录', exact: true })).toBeVisible()
  await expect(page.locator('lingxi-roles').getByRole('heading', { name: '登录后浏览角色库' })).toBeVisible()
  await logIn(page, '13500135000')

  await expect(headerProfile(page).getByTestId('header-phone')).toHaveText('135****5000')
  await expect(cardProfile(page).getByTestId('header-phone')).toHaveText('135****5000')
  await expect(cellLogin(page).getByRole('button', { name: '登录', exact: true })).toHaveCount(0)
  await expect(lateLogin(page).getByRole('button', { name: '登录', exact: true })).toHaveCount(0)
  await expect(inlineChat(page).getByTestId('composer')).toBeVisible()
  await expect(page.locator('lingxi-roles').getByRole('heading', { name: '登录后浏览角色库' })).toHaveCount(0)
  await bubble(page).locator('[part=launcher]').click()
  await expect(bubble(page).getByTestId('composer')).toBeVisible()
  await bubble(page).locator('[part=launcher]').click()
  await snap(page, info, 'cms-logged-in')

  // log out from the profile (its menu, then the confirmation of the page's toaster)
  await headerProfile(page).getByTestId('header-phone').click()
  await headerProfile(page).getByRole('menuitem', { name: '退出登录' }).click()
  await page.getByRole('dialog', { name: '退出登录' }).getByRole('button', { name: '退出' }).click()
  await expect(cellLogin(page).getByRole('button', { name: '登录', exact: true })).toBeVisible()
  await expect(lateLogin(page).getByRole('button', { name: '登录', exact: true })).toBeVisible()
  await expect(headerProfile(page).getByTestId('header-phone')).toHaveCount(0)
  await expect(cardProfile(page).getByTestId('header-phone')).toHaveCount(0)
  await expect(inlineChat(page).getByRole('heading', { name: '登录后开始对话' })).toBeVisible()
  await expect(page.locator('lingxi-roles').getByRole('heading', { name: '登录后浏览角色库' })).toBeVisible()
})

test('a refused token (50011005) seen by every element opens exactly one login dialog', async ({ page }) => {
  await page.goto(cms.url)
  await logIn(page, '13500135001')
  await expect(inlineChat(page).getByTestId('composer')).toBeVisible()

  const codes: number[] = []
  page.on('response', async (response) => {
    if (!response.url().includes('/api/v1/')) return
    const body = await response.json().catch(() => null)
    if (body && typeof body.code === 'number') codes.push(body.code)
  })
  // the session the page holds is unknown to the server now: its cookie (partitioned by the CMS's site) replaced
  const api = new URL(server.url)
  const refused = { name: 'lingxi_session', value: 'no-such-token', domain: api.hostname, path: '/api/', partitionKey: 'http://localhost' }
  await page.context().addCookies([{ ...refused, httpOnly: true, secure: true, sameSite: 'None' }])
  await page.reload()
  await expect(loginDialog(page)).toBeVisible()
  await expect.poll(() => codes.filter((c) => c === 50011005).length).toBeGreaterThanOrEqual(1)
  await page.waitForTimeout(500) // every element has had its answer
  await expect.poll(() => openDialogs(page)).toEqual(['手机号登录'])
  await expect(cellLogin(page).getByRole('button', { name: '登录', exact: true })).toBeVisible()

  // log in in that one dialog (another number: the first one's code is still cooling down)
  await completeLogin(page, server, '13500135002')
  await expect(headerProfile(page).getByTestId('header-phone')).toHaveText('135****5002')
  await expect(inlineChat(page).getByTestId('composer')).toBeVisible()
  await expect.poll(() => openDialogs(page)).toEqual([])
})

test('custom-elements.json describes the tags, attributes, events, parts and methods', async ({ request }) => {
  const manifest = await (await request.get(`${server.url}/cdn/custom-elements.json`)).json()
  const tags = manifest.modules.flatMap((m: { declarations: { tagName: string }[] }) => m.declarations.map((d) => d.tagName))
  expect(tags).toEqual(expect.arrayContaining(['lingxi-login', 'lingxi-profile', 'lingxi-toaster', 'lingxi-chat', 'lingxi-roles']))
  const chat = manifest.modules.flatMap((m: { declarations: unknown[] }) => m.declarations).find((d: { tagName: string }) => d.tagName === 'lingxi-chat')
  expect(chat.attributes.map((a: { name: string }) => a.name)).toEqual([
    'mode',
    'topic-id',
    'external-controls',
    'open',
    'position',
    'offset',
    'icon',
    'color',
    'greeting',
    'label',
    'starters',
    'welcome',
    'locale',
    'page-context',
    'theme'
  ])
  // set from script only (an object): a property, no attribute
  expect(chat.members.find((m: { name: string }) => m.name === 'context')).not.toHaveProperty('attribute')
  expect(chat.events.map((e: { name: string }) => e.name)).toEqual(expect.arrayContaining(['lingxi-open', 'lingxi-close', 'lingxi-message']))
  expect(chat.cssParts.map((p: { name: string }) => p.name)).toEqual(expect.arrayContaining(['launcher', 'panel', 'greeting']))
  expect(chat.members.filter((m: { kind: string }) => m.kind === 'method').map((m: { name: string }) => m.name)).toEqual([
    'identify',
    'show',
    'hide',
    'toggle',
    'send',
    'prefill',
    'destroy'
  ])
})
