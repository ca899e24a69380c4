import { execFile } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { type Browser, type BrowserContext, expect, type Locator, type Page, test } from '@playwright/test'
import { addSession, apiLogin, snap } from './helpers'
import { makePng } from './png'
import { type LingxiServer, startServer } from './server'

// Issue 19: every tool usable with the keyboard alone. One flow per tool, driven only by Tab,
// Shift+Tab, Enter, Space, Escape and the arrow keys (no click, no fill: text is typed into what has
// the focus), on the host page, signed in once through the login dialog by keyboard. At every stop
// the focused element must show a focus ring (a non-zero outline or a box-shadow). Screenshots of
// focus states at desktop and phone size; reduced motion emulated where things slide and fade.

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const run = promisify(execFile)

let server: LingxiServer
let context: BrowserContext
let page: Page
/** Focus stops without a visible ring, per test. */
let unringed: string[] = []

const ALL_TOOLS =
  'AI_TOOLS_CHAT,AI_TOOLS_ROLE,AI_TOOLS_PAINTING,AI_TOOLS_SD,AI_TOOLS_MUSIC,AI_TOOLS_HOT,AI_TOOLS_GALLERY,AI_TOOLS_IMAGE,AI_TOOLS_ORDER_PLATFORM,AI_TOOLS_ORDER_PLATFORM_QUALITY'
const PHONE = '13900139501'
/** Signs in by keyboard (another number: PHONE's code was just sent, and a second waits 60 s). */
const KEYBOARD_PHONE = '13900139509'
const DESKTOP = { width: 1280, height: 800 }
const MOBILE = { width: 390, height: 844 }

test.beforeAll(async ({ browser }: { browser: Browser }) => {
  // one order activity, published with the operator CLI before the server opens the data directory
  const dataDir = mkdtempSync(join(tmpdir(), 'lingxi-keyboard-'))
  await run(
    process.execPath,
    [
      join(root, 'server/bin/lingxi-admin.mjs'),
      'orders',
      'activity',
      'create',
      '--title',
      '键盘测评任务',
      '--brief',
      '用键盘完成。',
      '--reward-fen',
      '1000',
      '--budget-fen',
      '10000',
      '--places',
      '3',
      '--platform',
      'xiaohongshu',
      '--start',
      'now',
      '--end',
      '+7d',
      '--requirements',
      '不少于 100 字'
    ],
    {
      cwd: root,
      env: { ...process.env, DATA_DIR: dataDir, SMS_PROVIDER: 'console' }
    }
  )
  server = await startServer({ DATA_DIR: dataDir, DEFAULT_PERMISSIONS: ALL_TOOLS })
  context = await browser.newContext({ viewport: DESKTOP, locale: 'zh-CN' })
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url })
  // signed in from the start (a restarted worker too); the login test signs in by keyboard in a context of its own
  const token = await apiLogin(server, PHONE)
  await addSession(context, server, token)
  page = await context.newPage()
})
test.afterAll(async () => {
  await context?.close()
  await server?.stop()
})
test.beforeEach(() => {
  unringed = []
})
test.afterEach(() => {
  expect(unringed, 'focus stops without a visible focus ring').toEqual([])
})

/** The element that has the focus, through shadow roots: a description and whether it shows a ring. */
function focusedInfo() {
  return page.evaluate(() => {
    let el: Element | null = document.activeElement
    while (el?.shadowRoot?.activeElement) el = el.shadowRoot.activeElement
    if (!el || el === document.body) return null
    const cs = getComputedStyle(el)
    const outline = cs.outlineStyle !== 'none' && Number.parseFloat(cs.outlineWidth) > 0
    const shadow = cs.boxShadow !== 'none' && cs.boxShadow !== ''
    const name = (el.getAttribute('aria-label') || el.textContent || el.getAttribute('placeholder') || el.id || '').trim().slice(0, 30)
    return { desc: `${el.localName}${el.getAttribute('role') ? `[role=${el.getAttribute('role')}]` : ''} "${name}"`, ring: outline || shadow }
  })
}

async function checkRing() {
  const f = await focusedInfo()
  if (f && !f.ring && !unringed.includes(f.desc)) unringed.push(f.desc)
}

const isFocused = (target: Locator) => target.evaluate((el) => el.matches(':focus'))

/** Presses Tab (or Shift+Tab) until `target` has the focus, checking the ring at every stop. */
async function tabTo(target: Locator, { back = false, max = 80 } = {}) {
  await expect(target).toBeAttached()
  for (let i = 0; i < max; i++) {
    if (await isFocused(target)) return checkRing()
    await page.keyboard.press(back ? 'Shift+Tab' : 'Tab')
    await checkRing()
  }
  throw new Error(`Tab never reached ${target}; the focus is on ${(await focusedInfo())?.desc}`)
}

async function press(key: string) {
  await page.keyboard.press(key)
  await checkRing()
}

/** The animation a drawer opens with. */
const motion = (el: Element) => getComputedStyle(el).animationName

const lastReply = () => page.locator('[data-testid=message][data-role=assistant]').last()

test('login dialog: the phone field has the focus, the country picker works by keyboard', async ({ browser }) => {
  const own = await browser.newContext({ viewport: DESKTOP, locale: 'zh-CN' })
  const shared = page
  page = await own.newPage()
  try {
    await keyboardLogin()
  } finally {
    page = shared
    await own.close()
  }
})

async function keyboardLogin() {
  await page.goto(server.url + '/chat')
  await tabTo(page.getByRole('banner').getByRole('button', { name: '登录' }))
  await press('Enter')
  const dialog = page.getByRole('dialog', { name: '手机号登录' })
  await expect(dialog).toBeVisible()
  const phone = dialog.getByRole('textbox', { name: '手机号' })
  await expect(phone).toBeFocused()
  await checkRing()
  await snap(page, test.info(), 'login: phone field focused (desktop)', 'keyboard-')

  // the calling code: the button before the field opens a searchable list
  await tabTo(dialog.getByRole('button', { name: /国家或地区区号/ }), { back: true })
  await press('Enter')
  await expect(dialog.getByRole('searchbox', { name: '搜索国家或地区' })).toBeFocused()
  await page.keyboard.type('xianggang')
  await tabTo(dialog.getByRole('button', { name: /中国香港/ }))
  await snap(page, test.info(), 'login: country option focused', 'keyboard-')
  await press('Enter')
  const code = dialog.getByRole('button', { name: /国家或地区区号/ })
  await expect(code).toBeFocused()
  await expect(code).toContainText('+852')
  // Escape closes the list and leaves the dialog open; back to +86
  await press('Enter')
  await page.keyboard.type('86')
  await press('Escape')
  await expect(dialog).toBeVisible()
  await expect(code).toBeFocused()
  await press('Enter')
  await page.keyboard.type('zhongguo')
  await tabTo(dialog.getByRole('button', { name: /^中国\s*\+86$/ }))
  await press('Enter')
  await expect(code).toContainText('+86')

  await tabTo(phone)
  await page.keyboard.type(KEYBOARD_PHONE)
  await tabTo(dialog.getByRole('checkbox'))
  await press('Space')
  await expect(dialog.getByRole('checkbox')).toBeChecked()
  const mark = server.output().length
  await tabTo(dialog.getByRole('button', { name: '获取验证码' }), { back: true })
  await press('Enter')
  const codeField = dialog.getByRole('textbox', { name: '验证码' })
  await expect(codeField).toBeFocused()
  await page.keyboard.type(await server.smsCode(KEYBOARD_PHONE, mark))
  await press('Enter')
  await expect(page.getByText('登录成功！')).toBeVisible()
  await expect(dialog).toBeHidden()
}

test('chat: send, rename a topic; on a phone the topic drawer opens and closes', async () => {
  await page.goto(server.url + '/chat')
  const composer = page.getByTestId('composer')
  await tabTo(composer)
  await page.keyboard.type('你好，键盘')
  await press('Enter')
  await expect(lastReply()).toHaveAttribute('data-status', 'complete', { timeout: 30_000 })
  await snap(page, test.info(), 'chat: composer focused after sending', 'keyboard-')

  // rename: the topic, then its 重命名 button (shown while the item has the focus)
  const topics = page.getByRole('navigation', { name: '话题列表' })
  await tabTo(topics.getByTestId('topic-item').first().getByRole('button', { name: '重命名' }), { back: true })
  await snap(page, test.info(), 'chat: topic action focused', 'keyboard-')
  await press('Enter')
  const name = topics.getByRole('textbox', { name: '话题名称' })
  await expect(name).toBeFocused()
  await page.keyboard.type('键盘话题')
  await press('Enter')
  await expect(topics.getByTestId('topic-item').first()).toContainText('键盘话题')
  await expect(topics.getByTestId('topic-item').first().getByRole('button').first()).toBeFocused()

  // phone: the drawer from the header's 话题列表 button; Escape closes it and the focus returns
  await page.setViewportSize(MOBILE)
  await page.emulateMedia({ reducedMotion: 'reduce' })
  const trigger = page.getByRole('banner').getByRole('button', { name: '话题列表' })
  await tabTo(trigger, { back: true })
  await press('Enter')
  const drawer = page.getByRole('dialog', { name: '话题列表' })
  await expect(drawer).toBeVisible()
  // reduced motion: the drawer and its backdrop appear without sliding or fading
  expect(await drawer.evaluate(motion)).toBe('none')
  await checkRing()
  await snap(page, test.info(), 'chat: topic drawer open (phone)', 'keyboard-')
  await press('Escape')
  await expect(drawer).toBeHidden()
  await expect(trigger).toBeFocused()
  await page.emulateMedia({ reducedMotion: 'no-preference' })
  await press('Enter')
  await expect(drawer).toBeVisible()
  expect(await drawer.evaluate(motion)).toBe('lx-slide-left')
  await press('Escape')
  await expect(trigger).toBeFocused()
  await page.setViewportSize(DESKTOP)
})

test('roles: pick a role and start a chat with it', async () => {
  await page.goto(server.url + '/role')
  const start = page.getByTestId('role-card').first().getByRole('button', { name: '开始对话' })
  await tabTo(start)
  await snap(page, test.info(), 'roles: 开始对话 focused', 'keyboard-')
  await press('Enter')
  await expect(page).toHaveURL(/\/chat/)
  await expect(page.getByTestId('composer')).toBeVisible()
})

test('painting: submit a prompt, open the result in the lightbox, Escape returns the focus', async () => {
  await page.goto(server.url + '/mj')
  await tabTo(page.getByRole('textbox', { name: '画面描述' }))
  await page.keyboard.type('a cat made of keys')
  await tabTo(page.getByRole('button', { name: '生成', exact: true }))
  await press('Enter')
  const view = page.getByRole('button', { name: '查看大图' }).first()
  await expect(view).toBeVisible({ timeout: 45_000 })
  await tabTo(view, { max: 120 })
  await snap(page, test.info(), 'painting: 查看大图 focused', 'keyboard-')
  await press('Enter')
  const lightbox = page.getByRole('dialog', { name: '查看大图' })
  await expect(lightbox).toBeVisible()
  await checkRing()
  await press('Escape')
  await expect(lightbox).toBeHidden()
  await expect(view).toBeFocused()
})

test('music: create a song, play and pause it', async () => {
  await page.goto(server.url + '/music')
  await tabTo(page.getByRole('textbox', { name: '歌曲描述' }))
  await page.keyboard.type('一首关于键盘的轻快小曲')
  await tabTo(page.getByRole('button', { name: '生成音乐' }))
  await press('Enter')
  const play = page.getByRole('button', { name: /^播放《/ }).first()
  await expect(play).toBeVisible({ timeout: 60_000 })
  await expect(play).toBeEnabled({ timeout: 60_000 })
  await tabTo(play, { max: 120 })
  await press('Enter')
  const pause = page.getByRole('button', { name: '暂停' }).first()
  await expect(pause).toBeVisible()
  await snap(page, test.info(), 'music: playing', 'keyboard-')
  await tabTo(pause, { max: 120 })
  await press('Space')
  await expect(page.getByRole('button', { name: '播放', exact: true }).first()).toBeVisible()
})

test('hot news: open a source, open an item’s 解读, Escape closes it', async () => {
  await page.goto(server.url + '/hotNew')
  const tabs = page.getByRole('tablist', { name: '热榜来源' })
  const first = tabs.getByRole('tab', { selected: true })
  await tabTo(first)
  await press('ArrowRight')
  const second = tabs.getByRole('tab', { selected: true })
  await expect(second).toBeFocused()
  await expect(page.getByTestId('hot-item').first()).toBeVisible()
  const interpret = page
    .getByTestId('hot-item')
    .first()
    .getByRole('button', { name: /^AI 解读/ })
  await tabTo(interpret)
  await snap(page, test.info(), 'hot news: 解读 focused', 'keyboard-')
  await press('Enter')
  const dialog = page.getByRole('dialog', { name: 'AI 解读' })
  await expect(dialog).toBeVisible()
  await expect(dialog.getByTestId('interpretation')).not.toBeEmpty({ timeout: 30_000 })
  await press('Escape')
  await expect(dialog).toBeHidden()
  await expect(interpret).toBeFocused()
})

test('image host: reach the upload button, copy a link', async () => {
  await page.goto(server.url + '/imgSee')
  const choose = page.getByRole('button', { name: '选择图片', exact: true })
  await tabTo(choose)
  await snap(page, test.info(), 'image host: upload focused', 'keyboard-')
  // the file chooser is the system's; the file is handed to it as a user would pick it
  const chooser = page.waitForEvent('filechooser')
  await press('Enter')
  await (await chooser).setFiles({ name: '键盘.png', mimeType: 'image/png', buffer: makePng(64, 48) })
  const copy = page.getByTestId('image-card').first().getByRole('button', { name: '复制 URL 链接' })
  await expect(copy).toBeVisible({ timeout: 20_000 })
  await tabTo(copy, { back: true })
  await press('Enter')
  await expect(page.getByText('已复制到剪切板！')).toBeVisible()
  expect(await page.evaluate(() => navigator.clipboard.readText())).toMatch(/^https?:\/\/.+\/files\//)
})

test('user center: the redeem field takes a card code', async () => {
  await page.goto(server.url + '/usercenter?id=card')
  const field = page.getByLabel('兑换卡密')
  await tabTo(field)
  await page.keyboard.type('NOT-A-CARD-0000')
  await press('Enter')
  await expect(page.getByText(/充值卡号格式不正确/)).toBeVisible()
  await snap(page, test.info(), 'user center: redeem refused', 'keyboard-')
})

test('orders: open one', async () => {
  await page.goto(server.url + '/orders')
  const link = page.getByTestId('activity-card').first().getByTestId('session-link').first()
  await expect(link).toBeVisible({ timeout: 15_000 })
  await tabTo(link)
  await snap(page, test.info(), 'orders: a session link focused', 'keyboard-')
  await press('Enter')
  await expect(page).toHaveURL(/\/orders\/ordersDetail\/[^/]+\/[^/]+$/)
  await expect(page.getByRole('heading', { name: '键盘测评任务' })).toBeVisible()
})

for (const size of [
  { name: 'desktop', viewport: DESKTOP },
  { name: 'phone', viewport: MOBILE }
]) {
  test(`profile menu (${size.name}): Enter opens it, arrows move, Escape closes it and the focus returns`, async () => {
    await page.setViewportSize(size.viewport)
    await page.goto(server.url + '/role')
    const trigger = page.getByRole('banner').getByRole('button', { name: /139\*{4}9501/ })
    await tabTo(trigger)
    await snap(page, test.info(), `profile trigger focused (${size.name})`, 'keyboard-')
    await press('Enter')
    const menu = page.getByRole('menu', { name: '账号菜单' })
    await expect(menu).toBeVisible()
    const items = menu.getByRole('menuitem')
    await expect(items.nth(0)).toBeFocused()
    await checkRing()
    await press('ArrowDown')
    await expect(items.nth(1)).toBeFocused()
    await press('ArrowDown')
    await expect(items.nth(2)).toBeFocused()
    await snap(page, test.info(), `profile menu item focused (${size.name})`, 'keyboard-')
    await press('ArrowUp')
    await expect(items.nth(1)).toBeFocused()
    await press('ArrowUp')
    await press('ArrowUp')
    await expect(items.last()).toBeFocused()
    await press('Escape')
    await expect(menu).toBeHidden()
    await expect(trigger).toBeFocused()
    await checkRing()
    await page.setViewportSize(DESKTOP)
  })
}
