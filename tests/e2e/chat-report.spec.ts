import { expect, test } from '@playwright/test'
import { addSession, apiLogin, axe, snap } from './helpers'
import { type LingxiServer, startServer } from './server'

// 举报 a chat reply (issue 18): on the demo model, a person reports a reply from its actions; the
// report reaches the operator's 举报 queue with the reason and the reply's words — desktop and phone.

/** One operator per test: a phone gets one login code a minute. */
const OPERATORS = { desktop: '13900139201', phone: '13900139202' }
let server: LingxiServer
test.beforeAll(async () => {
  server = await startServer({ ADMIN_PHONES: Object.values(OPERATORS).join(',') })
})
test.afterAll(async () => {
  await server?.stop()
})

for (const size of [
  { name: 'desktop' as const, phone: false, user: '13800139211' },
  { name: 'phone' as const, phone: true, user: '13800139212' }
]) {
  test(`a reply reported from the chat reaches the operator's queue (${size.name})`, async ({ browser }, info) => {
    const viewport = size.phone ? { width: 390, height: 844 } : { width: 1280, height: 800 }
    const context = await browser.newContext({ viewport, locale: 'zh-CN', isMobile: size.phone, hasTouch: size.phone })
    await addSession(context, server, await apiLogin(server, size.user))
    const page = await context.newPage()
    await page.goto(`${server.url}/chat`)
    const composer = page.getByTestId('composer')
    await composer.fill(`请介绍一下杭州（${size.name}）`)
    await composer.press('Enter')
    const reply = page.locator('[data-testid=message][data-role=assistant]').last()
    await expect(reply).toHaveAttribute('data-status', 'complete', { timeout: 30_000 })
    // A question carries no 举报: only what the model wrote is reported.
    await expect(page.locator('[data-testid=message][data-role=user]').last().getByRole('button', { name: '举报' })).toHaveCount(0)
    await reply.hover()
    await reply.getByRole('button', { name: '举报' }).click()
    const dialog = page.getByRole('dialog', { name: '举报' })
    await expect(dialog).toBeVisible()
    await dialog.getByRole('radio', { name: '违法犯罪' }).check()
    await dialog.getByLabel(/补充说明/).fill(`回复里有不该有的内容（${size.name}）`)
    await axe(page, 'report a reply')
    await snap(page, info, `report a reply (${size.name})`, 'chat-report-')
    await dialog.getByRole('button', { name: '提交举报' }).click()
    await expect(page.getByText('举报已提交，感谢您的反馈')).toBeVisible()
    await expect(dialog).toBeHidden()
    // Asked again: the open report stands, once.
    await reply.hover()
    await reply.getByRole('button', { name: '举报' }).click()
    await dialog.getByRole('radio', { name: '其他' }).check()
    await dialog.getByLabel(/补充说明/).fill('再次举报')
    await dialog.getByRole('button', { name: '提交举报' }).click()
    await expect(page.getByText('您已举报过该内容，我们会尽快处理')).toBeVisible()

    const operator = await browser.newContext({ viewport, locale: 'zh-CN', isMobile: size.phone, hasTouch: size.phone })
    await addSession(operator, server, await apiLogin(server, OPERATORS[size.name]))
    const console = await operator.newPage()
    await console.goto(`${server.url}/admin?tab=reports`)
    const row = console.getByTestId('admin-row').filter({ hasText: `违法犯罪：回复里有不该有的内容（${size.name}）` })
    await expect(row).toHaveCount(1)
    await snap(console, info, `reports queue with a reply (${size.name})`, 'chat-report-')
    await context.close()
    await operator.close()
  })
}
