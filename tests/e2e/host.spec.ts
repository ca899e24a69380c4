import { expect, test, type Page, type TestInfo } from '@playwright/test'
import { loginAs as login, shot } from './helpers'
import { startServer, type LingxiServer } from './server'

// The walking skeleton, as a person meets it on the host page: log in with an SMS code, see the
// menu the permissions allow, open the profile, change phone, log out — on desktop and phone.

let server: LingxiServer
const PERMISSIONS = 'AI_TOOLS_CHAT,AI_TOOLS_PAINTING,AI_TOOLS_SD,AI_TOOLS_HOT'

test.beforeAll(async () => {
  server = await startServer({ DEFAULT_PERMISSIONS: PERMISSIONS })
})
test.afterAll(async () => {
  await server?.stop()
})

const loginAs = (page: Page, phone: string, info?: TestInfo) => login(page, server, phone, info)

test('a visitor sees the entry page, the default menu and a login button', async ({ page }, info) => {
  await page.goto(server.url + '/')
  await expect(page.getByRole('heading', { level: 1 })).toContainText('灵犀')
  const nav = page.getByRole('navigation', { name: '工具菜单' })
  await expect(nav.getByRole('link', { name: 'AI对话' })).toBeVisible()
  await expect(nav.getByRole('link', { name: 'SD绘画' })).toHaveCount(0)
  await expect(page.getByRole('banner').getByRole('button', { name: '登录' })).toBeVisible()
  await shot(page, info, 'entry page (desktop)')
})

test('the login dialog enforces its rules before anything is sent', async ({ page }, info) => {
  await page.goto(server.url + '/chat')
  await page.getByRole('banner').getByRole('button', { name: '登录' }).click()
  const dialog = page.getByRole('dialog', { name: '手机号登录' })
  await expect(dialog).toBeVisible()
  const getCode = dialog.getByRole('button', { name: '获取验证码' })
  await expect(getCode).toHaveAttribute('aria-disabled', 'true')
  await getCode.click({ force: true }) // dimmed (aria-disabled): a click does nothing
  await expect(dialog.getByLabel('手机号')).toBeVisible() // still step 1, nothing sent
  await dialog.getByLabel('手机号').fill('13700137000')
  await expect(getCode).toHaveAttribute('aria-disabled', 'false')
  await getCode.click()
  await expect(dialog.getByRole('alert')).toHaveText('请勾选同意后再登录')
  await expect(dialog.getByRole('link', { name: '《灵犀服务条款》' })).toHaveAttribute('href', '/license.html')
  // the country picker searches by pinyin
  await dialog.getByRole('button', { name: /国家或地区区号/ }).click()
  await dialog.getByRole('searchbox').fill('xianggang')
  await dialog.getByRole('list', { name: '国家或地区' }).getByRole('button', { name: /香港/ }).click()
  await expect(dialog.getByRole('button', { name: /国家或地区区号/ })).toHaveText(/\+852/)
  await shot(page, info, 'login step 1')
  await page.keyboard.press('Escape')
  await expect(dialog).toBeHidden()
})

test('log in, menu follows permissions, guard, profile, change phone, reload, log out', async ({ page }, info) => {
  await page.goto(server.url + '/')
  await loginAs(page, '13800138000', info)

  const header = page.getByRole('banner')
  await expect(header.getByTestId('header-phone')).toHaveText('138****8000')
  // the menu is exactly what the permissions allow; SD is held but never shown
  const nav = page.getByRole('navigation', { name: '工具菜单' })
  await expect(nav.getByRole('link')).toHaveText(['AI对话', 'AI绘画', '热点资讯', '个人中心'])
  // permission codes are kept under the spec's key
  expect(JSON.parse((await page.evaluate(() => localStorage.getItem('premission menus'))) ?? '[]')).toEqual(expect.arrayContaining(PERMISSIONS.split(',')))

  // a logged-in person lands on the first permitted tool; a forbidden path is replaced
  await expect(page).toHaveURL(/\/chat$/)
  // a full page load of a forbidden tool never mounts it: no call of its API, no 403
  const refused: string[] = []
  const onResponse = (r: { status(): number; url(): string }) => {
    if (r.status() === 403) refused.push(r.url())
  }
  page.on('response', onResponse)
  for (const forbidden of ['/gallery', '/orders', '/music']) {
    await page.goto(server.url + forbidden)
    await expect(page).toHaveURL(/\/chat$/)
    await expect(page.getByTestId('composer')).toBeVisible()
  }
  page.off('response', onResponse)
  expect(refused).toEqual([])
  await page.goto(server.url + '/sd')
  await expect(page).toHaveURL(/\/sd$/)
  await expect(nav.getByRole('link', { name: 'AI绘画' })).toHaveAttribute('aria-current', 'page')
  await page.goto(server.url + '/somewhere/else')
  await expect(page).toHaveURL(/\/chat$/)
  await page.goto(server.url + '/usercenter?id=general')
  await expect(page.getByRole('heading', { name: '个人中心' })).toBeVisible()

  // profile panel: masked phone and the three allowances
  await header.getByTestId('header-phone').click()
  await page.getByRole('menuitem', { name: '个人信息' }).click()
  const panel = page.getByRole('dialog', { name: '个人信息' })
  await expect(panel.getByTestId('profile-phone')).toHaveText('138****8000')
  await expect(panel.getByTestId('usage-value')).toHaveText(['10.0w+', '20', '10'])
  await expect(panel.getByRole('link', { name: 'AI对话' })).toBeVisible()
  await shot(page, info, 'profile panel (desktop)')
  await page.keyboard.press('Escape')
  await expect(panel).toBeHidden()

  // change phone: the same two steps, titled 请输入新手机号
  await header.getByTestId('header-phone').click()
  await page.getByRole('menuitem', { name: '修改手机号' }).click()
  const modify = page.getByRole('dialog', { name: '请输入新手机号' })
  await modify.getByLabel('手机号').fill('13900139000')
  const mark = server.output().length
  await modify.getByRole('button', { name: '获取验证码' }).click()
  await modify.getByLabel('验证码').fill(await server.smsCode('13900139000', mark))
  await shot(page, info, 'change phone step 2')
  await modify.getByRole('button', { name: '确认修改' }).click()
  await expect(page.getByText('修改成功！')).toBeVisible()
  await expect(header.getByTestId('header-phone')).toHaveText('139****9000')

  // the session survives a reload
  await page.reload()
  await expect(header.getByTestId('header-phone')).toHaveText('139****9000')

  // log out
  await header.getByTestId('header-phone').click()
  await page.getByRole('menuitem', { name: '退出登录' }).click()
  await page.getByRole('dialog', { name: '退出登录' }).getByRole('button', { name: '退出' }).click()
  await expect(page.getByText('已退出登录，期待您再次回来')).toBeVisible()
  await expect(header.getByRole('button', { name: '登录' })).toBeVisible()
  expect(await page.evaluate(() => document.cookie)).not.toContain('lingxi_token')
  await page.reload()
  await expect(header.getByRole('button', { name: '登录' })).toBeVisible()
})

test('a redirect login link signs in and leaves the address bar clean', async ({ page, request }) => {
  const phone = '13600136000'
  const mark = server.output().length
  const sent = await request.post(server.url + '/api/v1/auth/send-sms-code', { data: { enCode: '86', phone, smsType: 'LOGIN', imgVerifyState: 1 } })
  expect((await sent.json()).code).toBe(2000)
  const code = await server.smsCode(phone, mark)
  const res = await request.post(server.url + '/api/v1/auth/login', { data: { enCode: '86', phone, code, platform: 'PC' } })
  const { data } = await res.json()
  // A token in `?login=` is no credential any more (ADR 0019): without the session cookie nobody is logged in.
  await page.goto(`${server.url}/chat?login=${encodeURIComponent(Buffer.from(JSON.stringify(data)).toString('base64'))}`)
  await expect(page).toHaveURL(/\/chat$/)
  await expect(page.getByRole('dialog', { name: '手机号登录' })).toBeVisible()
  await expect(page.getByRole('banner').getByTestId('header-phone')).toHaveCount(0)
  // What the WeChat callback does: it sets the HttpOnly session cookie, and `?login=` only names who logged in.
  const api = new URL(server.url)
  await page
    .context()
    .addCookies([{ name: 'lingxi_session', value: data.accessToken, domain: api.hostname, path: '/api/', httpOnly: true, secure: true, sameSite: 'None' }])
  const payload = Buffer.from(JSON.stringify({ ...data, accessToken: '' })).toString('base64')
  await page.goto(`${server.url}/chat?from=mail&login=${encodeURIComponent(payload)}`)
  await expect(page.getByRole('banner').getByTestId('header-phone')).toHaveText('136****6000')
  await expect(page).toHaveURL(/\/chat\?from=mail$/)
})

test('/404 explains itself', async ({ page }) => {
  await page.goto(server.url + '/404')
  await expect(page.getByRole('heading', { name: '页面不存在' })).toBeVisible()
})

test.describe('on a phone', () => {
  test.use({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true })

  test('bottom bar, bottom-drawer login and right-drawer profile', async ({ page }, info) => {
    await page.goto(server.url + '/')
    await expect(page.getByTestId('bottom-bar')).toBeVisible()
    await expect(page.getByRole('navigation', { name: '工具菜单' })).toHaveCount(1)
    await shot(page, info, 'entry page (phone)')

    await page.getByRole('banner').getByRole('button', { name: '登录' }).click()
    const dialog = page.getByRole('dialog', { name: '手机号登录' })
    await expect(dialog).toBeVisible()
    await page.waitForTimeout(300) // let the slide-up settle before measuring
    const box = (await dialog.boundingBox())!
    expect(Math.round(box.width)).toBe(390)
    expect(Math.round(box.y + box.height)).toBe(844)
    await shot(page, info, 'login drawer (phone)')

    await loginAs(page, '13500135000')
    const bar = page.getByTestId('bottom-bar')
    await expect(bar.getByRole('link')).toHaveText(['AI对话', 'AI绘画', '热点资讯', '我的'])
    await page.getByRole('banner').getByTestId('header-phone').click()
    await page.getByRole('menuitem', { name: '个人信息' }).click()
    const panel = page.getByRole('dialog', { name: '个人信息' })
    await expect(panel).toBeVisible()
    await page.waitForTimeout(300)
    const p = (await panel.boundingBox())!
    expect(Math.round(p.width)).toBe(300)
    expect(Math.round(p.x + p.width)).toBe(390)
    await shot(page, info, 'profile drawer (phone)')
  })

  test('the login dialog opens on the phone field; the country picker is a Shift+Tab away', async ({ page }) => {
    await page.goto(server.url + '/')
    await page.getByRole('banner').getByRole('button', { name: '登录' }).tap()
    const dialog = page.getByRole('dialog', { name: '手机号登录' })
    await expect(dialog).toBeVisible()
    await expect(dialog.getByLabel('手机号')).toBeFocused()
    await page.keyboard.type('13500135009')
    await expect(dialog.getByLabel('手机号')).toHaveValue('13500135009')
    // the calling code, by keyboard
    await page.keyboard.press('Shift+Tab')
    const picker = dialog.getByRole('button', { name: /^国家或地区区号/ })
    await expect(picker).toBeFocused()
    await page.keyboard.press('Enter')
    await expect(picker).toHaveAttribute('aria-expanded', 'true')
    await expect(dialog.getByPlaceholder('搜索国家/地区、拼音或区号')).toBeFocused()
    await page.keyboard.press('Escape')
    await expect(picker).toHaveAttribute('aria-expanded', 'false')
    await expect(dialog).toBeVisible()
  })

  test('the current tool is scrolled into view when the bottom bar overflows', async ({ page }) => {
    // every tool of the default permissions: more than a phone's width
    const full = await startServer()
    try {
      await page.goto(full.url + '/')
      await login(page, full, '13500135001')
      await page.goto(full.url + '/imgSee')
      const bar = page.getByTestId('bottom-bar')
      const current = bar.locator('[aria-current="page"]')
      await expect(current).toHaveText('图床')
      await expect(current).toBeInViewport({ ratio: 1 })
    } finally {
      await full.stop()
    }
  })
})

test.describe('an allowlisted review account', () => {
  let reviewServer: LingxiServer
  test.beforeAll(async () => {
    reviewServer = await startServer({ LOGIN_WITHOUT_CODE_PHONES: '13200132000' })
  })
  test.afterAll(async () => {
    await reviewServer?.stop()
  })

  test('logs in straight from 获取验证码, no code sent', async ({ page }) => {
    await page.goto(reviewServer.url + '/')
    await page.getByRole('banner').getByRole('button', { name: '登录' }).click()
    const dialog = page.getByRole('dialog', { name: '手机号登录' })
    await dialog.getByLabel('手机号').fill('13200132000')
    await dialog.getByRole('checkbox').check()
    await dialog.getByRole('button', { name: '获取验证码' }).click()
    await expect(page.getByText('登录成功！')).toBeVisible()
    await expect(page.getByRole('banner').getByTestId('header-phone')).toHaveText('132****2000')
    expect(reviewServer.output().some((l) => l.startsWith('[sms]'))).toBe(false)
  })
})

test('the account menu works from the keyboard', async ({ page }) => {
  await page.goto(server.url + '/')
  await loginAs(page, '13100131000')
  const trigger = page.getByRole('banner').getByRole('button', { name: /131\*\*\*\*1000/ })
  await trigger.focus()
  await page.keyboard.press('Enter')
  await expect(page.getByRole('menuitem', { name: '个人信息' })).toBeFocused()
  await page.keyboard.press('ArrowDown')
  await expect(page.getByRole('menuitem', { name: '个人中心' })).toBeFocused()
  await page.keyboard.press('ArrowUp')
  await page.keyboard.press('ArrowUp')
  await expect(page.getByRole('menuitem', { name: '退出登录' })).toBeFocused()
  await page.keyboard.press('Escape')
  await expect(page.getByRole('menu')).toHaveCount(0)
  await expect(trigger).toBeFocused()
})
