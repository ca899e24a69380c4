import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { expect, test, type Page } from '@playwright/test'
import { loginAs, snap } from './helpers'
import { makePng } from './png'
import { startFakeWechatOAuth } from '../../server/test/fakes/wechat-oauth'
import { startFakeWechatPay } from '../../server/test/fakes/wechat-pay'
import { startServer, type LingxiServer } from './server'

// The order platforms on the host page with the offline demo payer: the operator publishes
// activities with the CLI, a person takes an order, drafts it with AI 起草 (demo chat model),
// submits the link and a screenshot, the operator approves with the CLI, and the person opens the
// red packet (開) and watches it arrive. The embedded database serves one process at a time, so
// the CLI runs while the server is stopped, on the same DATA_DIR (the page keeps its session).
// The last test restarts the site with WeChat login and WeChat Pay v2 fakes: binding WeChat from the
// packet, SYSTEMERROR (retried by the server) then paid, once.

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const run = promisify(execFile)
const ALL = 'AI_TOOLS_CHAT,AI_TOOLS_ROLE,AI_TOOLS_PAINTING,AI_TOOLS_SD,AI_TOOLS_MUSIC,AI_TOOLS_HOT,AI_TOOLS_GALLERY,AI_TOOLS_IMAGE,AI_TOOLS_ORDER_PLATFORM'

let dataDir = ''
let port = 0
let server: LingxiServer | null = null
/** More settings for the next (re)start: the WeChat fakes of the last test. */
let extra: Record<string, string> = {}
const env = () => ({ DATA_DIR: dataDir, PORT: String(port), DEFAULT_PERMISSIONS: ALL, WECHAT_PAY_DEMO_DELAY_MS: '1500', ...extra })

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer()
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number }
      srv.close(() => resolve(port))
    })
    srv.on('error', reject)
  })
}

/** `lingxi-admin …` on the test's DATA_DIR (the server must be stopped). */
async function admin(...args: string[]): Promise<string> {
  const { stdout } = await run(process.execPath, [join(root, 'server/bin/lingxi-admin.mjs'), ...args], {
    cwd: root,
    env: { ...process.env, ...env(), SMS_PROVIDER: 'console' }
  })
  return stdout
}

async function stopServer() {
  await server?.stop()
  server = null
}

async function restartServer() {
  await stopServer()
  server = await startServer(env())
}

test.beforeAll(async () => {
  // Several runs of lingxi-admin, each opening the embedded database: slow on a loaded machine.
  test.setTimeout(180_000)
  dataDir = mkdtempSync(join(tmpdir(), 'lingxi-orders-e2e-'))
  port = await freePort()
  const common = ['--platform', 'xiaohongshu', '--start', 'now', '--end', '+7d', '--requirements', '不少于 300 字\n配 3 张图']
  await admin(
    'orders',
    'activity',
    'create',
    '--title',
    '新品面霜种草笔记',
    '--brief',
    '为**灵犀面霜**写一篇种草笔记：突出保湿、温和。',
    '--reward-fen',
    '1250',
    '--budget-fen',
    '100000',
    '--sessions',
    '2',
    '--places',
    '3',
    ...common
  )
  await admin(
    'orders',
    'activity',
    'create',
    '--title',
    '城市咖啡探店视频',
    '--brief',
    '拍一条 30 秒探店视频。',
    '--reward-fen',
    '3000',
    '--budget-fen',
    '60000',
    '--places',
    '5',
    ...common.map((v) => (v === 'xiaohongshu' ? 'douyin' : v))
  )
  await admin(
    'orders',
    'activity',
    'create',
    '--title',
    '优质长文测评',
    '--brief',
    '深度测评。',
    '--reward-fen',
    '20000',
    '--budget-fen',
    '200000',
    '--quality',
    ...common
  )
  server = await startServer(env())
})
test.afterAll(async () => {
  await stopServer()
  rmSync(dataDir, { recursive: true, force: true })
})

const cards = (page: Page) => page.getByTestId('activity-card')

test('take an order, AI 起草, submit with a screenshot, approved by the operator, open the red packet', async ({ page, context }, info) => {
  test.setTimeout(150_000)
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server!.url })
  await page.goto(server!.url + '/orders')
  await loginAs(page, server!, '13800138600')
  await expect(page.getByRole('heading', { name: '接单平台' })).toBeVisible()

  // the list: ordinary activities only, reward in 元, places left
  await expect(cards(page)).toHaveCount(2)
  await expect(page.getByText('优质长文测评')).toHaveCount(0)
  const cream = cards(page).filter({ hasText: '新品面霜种草笔记' })
  await expect(cream.getByTestId('reward')).toHaveText('12.50')
  await expect(cream.getByTestId('places-left')).toHaveText('6')
  await expect(cream.getByTestId('session-link')).toHaveCount(2)
  await snap(page, info, 'orders list', 'orders-')

  // filters: platform, then keyword
  await page.getByLabel('发布平台').selectOption('douyin')
  await expect(cards(page)).toHaveCount(1)
  await expect(cards(page).first()).toContainText('城市咖啡探店视频')
  await page.getByLabel('发布平台').selectOption('')
  await expect(cards(page)).toHaveCount(2)
  await page.getByLabel('关键词').fill('面霜')
  await page.getByLabel('关键词').press('Enter')
  await expect(cards(page)).toHaveCount(1)
  await expect(cards(page).first()).toContainText('新品面霜种草笔记')

  // the first session's detail (a link: the page routes it)
  await cards(page).first().getByTestId('session-link').first().click()
  await expect(page).toHaveURL(/\/orders\/ordersDetail\/[^/]+\/[^/]+$/)
  const detailUrl = page.url()
  await expect(page.getByRole('heading', { name: '新品面霜种草笔记' })).toBeVisible()
  await expect(page.getByText('不少于 300 字')).toBeVisible()
  await expect(page.getByTestId('detail-places-left')).toContainText('3')
  await snap(page, info, 'detail', 'orders-')

  // take the order after confirming: a place is reserved
  await page.getByRole('button', { name: '立即接单' }).click()
  const ask = page.getByRole('dialog', { name: '确认接单' })
  await expect(ask).toContainText('占用 1 个名额')
  await ask.getByRole('button', { name: '接单' }).click()
  await expect(page.getByText('接单成功，开始创作吧')).toBeVisible()
  await expect(page.getByTestId('order-status')).toHaveText('待提交')
  await expect(page.getByTestId('detail-places-left')).toContainText('2')

  // AI 起草 streams a draft from the brief into the editor; it is saved and can be copied
  const draft = page.getByTestId('draft')
  await page.getByRole('button', { name: 'AI 起草' }).click()
  await expect(draft).not.toHaveValue('', { timeout: 20_000 })
  await expect(page.getByRole('button', { name: 'AI 起草' })).toBeVisible({ timeout: 30_000 })
  const drafted = await draft.inputValue()
  expect(drafted.length).toBeGreaterThan(10)
  await expect(page.getByRole('button', { name: '已保存' })).toBeVisible()
  await page.getByRole('button', { name: '复制草稿' }).click()
  await expect(page.getByText('已复制到剪切板！')).toBeVisible()
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(drafted)
  // a hand edit, saved
  await draft.fill(`${drafted}\n#灵犀面霜`)
  await page.getByRole('button', { name: '保存草稿' }).click()
  await expect(page.getByText('草稿已保存', { exact: true })).toBeVisible()
  await snap(page, info, 'draft', 'orders-')

  // the submission: nothing is sent until the link and a screenshot are there
  await page.getByRole('button', { name: '提交审核' }).click()
  await expect(page.getByTestId('submit-error')).toHaveText('请填写发布链接')
  await page.getByLabel('发布链接').fill('https://www.xiaohongshu.com/explore/65f0c0ffee')
  await page.getByRole('button', { name: '提交审核' }).click()
  await expect(page.getByTestId('submit-error')).toHaveText('请至少上传 1 张截图')
  await page.getByTestId('screenshot-input').setInputFiles([
    { name: '截图1.png', mimeType: 'image/png', buffer: makePng(390, 844, { seed: 5 }) },
    { name: '截图2.png', mimeType: 'image/png', buffer: makePng(390, 844, { seed: 6 }) }
  ])
  await expect(page.getByTestId('screenshot')).toHaveCount(2)
  await expect(page.locator('[data-testid=screenshot][data-status=done]')).toHaveCount(2)
  await page.getByRole('button', { name: '删除截图 2' }).click()
  await expect(page.getByTestId('screenshot')).toHaveCount(1)
  await snap(page, info, 'submission form', 'orders-')
  await page.getByRole('button', { name: '提交审核' }).click()
  await expect(page.getByText('已提交，等待审核')).toBeVisible()
  await expect(page.getByTestId('order-status')).toHaveText('审核中')
  const submitted = page.getByRole('img', { name: '截图 1' })
  await expect(submitted).toBeVisible()
  expect(await submitted.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(390)

  // the operator approves with the CLI (the server is stopped meanwhile: one process per data dir)
  await stopServer()
  const waiting = await admin('orders', 'review', 'list')
  const orderId = /^(\S+)\s+新品面霜种草笔记/m.exec(waiting)?.[1]
  expect(orderId, waiting).toBeTruthy()
  expect(waiting).toContain('https://www.xiaohongshu.com/explore/65f0c0ffee')
  expect(await admin('orders', 'review', 'approve', orderId!)).toContain(`Approved ${orderId}`)
  await restartServer()

  // approved: 领取红包 opens the packet; 開 sends it (demo payer) and it arrives
  await page.goto(detailUrl)
  await expect(page.getByTestId('order-status')).toHaveText('已通过')
  await expect(page.getByTestId('pay-state')).toHaveText('红包未领取')
  await page.getByRole('button', { name: '领取红包' }).click()
  const packet = page.getByTestId('red-packet')
  await expect(packet).toHaveAttribute('data-phase', 'closed')
  await snap(page, info, 'red packet closed', 'orders-')
  await packet.getByRole('button', { name: '开红包，奖励 12.50 元' }).click()
  await expect(packet).toHaveAttribute('data-phase', 'open')
  await expect(page.getByTestId('red-packet-amount')).toHaveText('12.50')
  await expect(page.getByTestId('red-packet-demo')).toContainText('演示红包')
  // The demo payer is SENDING, then SENT for 1.5 s, then RECEIVED: a loaded machine may poll past SENT.
  await expect(packet).toHaveAttribute('data-pay-state', /^(SENT|RECEIVED)$/, { timeout: 15_000 })
  await expect(page.getByTestId('red-packet-state')).toContainText(/请在微信中领取|奖励已到账/)
  await snap(page, info, 'red packet open', 'orders-')
  await page.setViewportSize({ width: 390, height: 844 })
  await snap(page, info, 'red packet open phone', 'orders-')
  await page.setViewportSize({ width: 1280, height: 720 })
  await packet.getByRole('button', { name: '完成' }).click()
  await expect(packet).toBeHidden()
  await expect(page.getByTestId('pay-state')).toContainText(/已发放|已领取/)

  // my orders: the same order, paid once; another claim re-reads the same packet
  await page.goto(server!.url + '/orders?view=mine')
  const mine = page.getByTestId('my-order')
  await expect(mine).toHaveCount(1)
  await expect(mine.first()).toContainText('新品面霜种草笔记')
  await expect(mine.first().getByTestId('order-status')).toHaveText('已通过')
  await expect(mine.first().getByTestId('pay-state')).toContainText(/已发放|已领取/)
  await expect(mine.first().getByRole('button', { name: '领取红包' })).toHaveCount(0)
  await snap(page, info, 'my orders', 'orders-')
  const paid = await page.evaluate(async (id) => {
    // the page's own session: its HttpOnly cookie, with the CSRF header (ADR 0019)
    const res = await fetch('/api/v1/wx-red-pack/v2/send', {
      method: 'POST',
      credentials: 'include',
      headers: { 'content-type': 'application/json', 'x-lingxi-request': '1' },
      body: JSON.stringify({ orderId: id })
    })
    return res.json()
  }, orderId)
  expect(paid.code).toBe(2000)
  expect(paid.data.amountFen).toBe(1250)
  expect(['SENT', 'RECEIVED']).toContain(paid.data.payState)
})

test('the quality platform needs its permission and shows quality activities only', async ({ page }) => {
  await page.goto(server!.url + '/miracleOrders')
  await loginAs(page, server!, '13800138601')
  // without AI_TOOLS_ORDER_PLATFORM_QUALITY the page sends the person elsewhere
  await expect(page).not.toHaveURL(/\/miracleOrders/)
  // and a full page load of it never mounts the platform: no call of its API, no 403
  const refused: string[] = []
  const onResponse = (r: { status(): number; url(): string }) => {
    if (r.status() === 403) refused.push(r.url())
  }
  page.on('response', onResponse)
  await page.goto(server!.url + '/miracleOrders')
  await expect(page).not.toHaveURL(/\/miracleOrders/)
  // (a refused call would have been sent before the redirect; give its answer time to arrive)
  await page.waitForTimeout(500)
  page.off('response', onResponse)
  expect(refused).toEqual([])

  await stopServer()
  expect(await admin('grant', '13800138601', 'AI_TOOLS_ORDER_PLATFORM_QUALITY')).toBeTruthy()
  await restartServer()
  await page.goto(server!.url + '/miracleOrders')
  await expect(page.getByRole('heading', { name: /优质接单平台/ })).toBeVisible()
  await expect(cards(page)).toHaveCount(1)
  await expect(cards(page).first()).toContainText('优质长文测评')
  await expect(cards(page).first()).toContainText('优质')
  await expect(cards(page).first().getByTestId('reward')).toHaveText('200')
  await cards(page).first().getByTestId('session-link').first().click()
  await expect(page).toHaveURL(/\/miracleOrders\/ordersDetail\/[^/]+\/[^/]+$/)
  await expect(page.getByRole('heading', { name: '优质长文测评' })).toBeVisible()
  await expect(page.getByRole('button', { name: '立即接单' })).toBeVisible()

  // the two tabs by keyboard
  await page.getByRole('link', { name: /返回优质任务大厅/ }).click()
  await page.getByRole('tab', { name: '任务大厅' }).focus()
  await page.keyboard.press('ArrowRight')
  await expect(page.getByRole('tab', { name: '我的订单' })).toHaveAttribute('aria-selected', 'true')
  await expect(page.getByRole('tab', { name: '我的订单' })).toBeFocused()
  await expect(page.getByText('还没有接过单')).toBeVisible()
})

test.describe('phone', () => {
  test.use({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true })

  test('list, detail and my orders fit a phone', async ({ page }, info) => {
    await page.goto(server!.url + '/orders')
    await loginAs(page, server!, '13800138602')
    await expect(cards(page)).toHaveCount(2)
    // nothing of the widget sticks out of the screen (toasts slide in from the side: not counted)
    const overflow = () =>
      page.evaluate(() => {
        const host = document.querySelector('lingxi-app')!.shadowRoot!.querySelector('lingxi-orders')!
        const all = [...host.shadowRoot!.querySelectorAll('*')]
        return Math.max(0, ...all.map((el) => Math.ceil(el.getBoundingClientRect().right) - document.documentElement.clientWidth))
      })
    expect(await overflow()).toBeLessThanOrEqual(0)
    await snap(page, info, 'phone list', 'orders-')
    await cards(page).first().getByTestId('session-link').first().click()
    await expect(page.getByRole('button', { name: '立即接单' })).toBeVisible()
    expect(await overflow()).toBeLessThanOrEqual(0)
    await page.getByRole('button', { name: '立即接单' }).click()
    await page.getByRole('dialog', { name: '确认接单' }).getByRole('button', { name: '接单' }).click()
    await expect(page.getByTestId('draft')).toBeVisible()
    expect(await overflow()).toBeLessThanOrEqual(0)
    await snap(page, info, 'phone detail', 'orders-')
  })
})

test('with WeChat Pay: the packet asks to bind WeChat, survives SYSTEMERROR, and pays once', async ({ page }, info) => {
  test.setTimeout(150_000)
  const oauth = await startFakeWechatOAuth()
  oauth.autoConfirm = false
  const pay = await startFakeWechatPay({ appId: oauth.appId })
  try {
    extra = {
      WECHAT_APP_ID: oauth.appId,
      WECHAT_APP_SECRET: oauth.appSecret,
      WECHAT_OPEN_URL: oauth.url,
      WECHAT_API_URL: oauth.url,
      WECHAT_PAY_MCH_ID: pay.mchId,
      WECHAT_PAY_API_KEY: pay.apiKey,
      WECHAT_PAY_APP_ID: pay.appId,
      WECHAT_PAY_URL: pay.url
    }
    await restartServer()

    // a phone account takes an order in the coffee activity and submits it
    await page.goto(server!.url + '/orders')
    await loginAs(page, server!, '13800138610')
    await cards(page).filter({ hasText: '城市咖啡探店视频' }).getByTestId('session-link').first().click()
    await page.getByRole('button', { name: '立即接单' }).click()
    await page.getByRole('dialog', { name: '确认接单' }).getByRole('button', { name: '接单' }).click()
    await page.getByLabel('发布链接').fill('https://www.douyin.com/video/7300000000000000000')
    await page.getByTestId('screenshot-input').setInputFiles([{ name: 'a.png', mimeType: 'image/png', buffer: makePng(200, 300, { seed: 9 }) }])
    await expect(page.locator('[data-testid=screenshot][data-status=done]')).toHaveCount(1)
    await page.getByRole('button', { name: '提交审核' }).click()
    await expect(page.getByTestId('order-status')).toHaveText('审核中')
    const detailUrl = page.url()

    await stopServer()
    const orderId = /^(\S+)\s+城市咖啡探店视频/m.exec(await admin('orders', 'review', 'list'))?.[1]
    expect(orderId).toBeTruthy()
    await admin('orders', 'review', 'approve', orderId!)
    await restartServer()

    // 開 without WeChat bound: the packet says so and offers the binding
    await page.goto(detailUrl)
    await page.getByRole('button', { name: '领取红包' }).click()
    const packet = page.getByTestId('red-packet')
    await packet.getByRole('button', { name: '开红包，奖励 30 元' }).click()
    await expect(packet).toHaveAttribute('data-phase', 'refused')
    await expect(page.getByTestId('red-packet-error')).toHaveText('请先绑定微信（使用微信登录一次）')
    expect(pay.packets.size).toBe(0)
    await snap(page, info, 'red packet needs WeChat', 'orders-')

    // bind in the popup; the packet tries again by itself: WeChat answers SYSTEMERROR once, the
    // server retries with the same mch_billno, and it is paid
    pay.failNext('SYSTEMERROR')
    const popupPromise = page.waitForEvent('popup')
    await packet.getByRole('button', { name: '微信登录绑定' }).click()
    const popup = await popupPromise
    const closed = popup.waitForEvent('close')
    await popup.getByRole('link', { name: '模拟扫码确认' }).click()
    await closed
    await expect(page.getByText('微信绑定成功')).toBeVisible()
    await expect(packet).toHaveAttribute('data-phase', 'open', { timeout: 20_000 })
    await expect(packet).toHaveAttribute('data-pay-state', 'SENT', { timeout: 20_000 })
    await expect(page.getByTestId('red-packet-amount')).toHaveText('30')
    await expect(page.getByTestId('red-packet-demo')).toHaveCount(0)
    await snap(page, info, 'red packet paid by WeChat Pay', 'orders-')
    expect(pay.packets.size).toBe(1)
    const [paid] = [...pay.packets.values()]
    expect(paid).toMatchObject({ amount: 3000, openid: oauth.user.openid })
    const sends = pay.requests.filter((r) => r.path.endsWith('/sendredpack'))
    expect(sends.length).toBe(2)
    expect(new Set(sends.map((r) => r.body.mch_billno)).size).toBe(1)
    expect(pay.requests.every((r) => r.signOk)).toBe(true)

    // opened again later: the same packet, re-read, never a second one
    await packet.getByRole('button', { name: '完成' }).click()
    await page.reload()
    await page.getByRole('button', { name: '查看红包' }).click()
    await expect(packet).toHaveAttribute('data-pay-state', 'SENT')
    expect(pay.packets.size).toBe(1)
  } finally {
    extra = {}
    await oauth.close()
    await pay.close()
  }
})
