import { expect, type Page, test, type TestInfo } from '@playwright/test'
import { axe, loginAs, snap } from './helpers'
import { type LingxiServer, startServer } from './server'

// Edit and resend (issue 20, item 4) on the demo model: a question edited in place gets a new
// reply, the old one stays a version to switch back to (‹ 1/2 ›), and the choice survives a
// reload — on a desktop and on a phone.

let server: LingxiServer
test.beforeAll(async () => {
  server = await startServer()
})
test.afterAll(async () => {
  await server?.stop()
})

const messages = (page: Page) => page.locator('[data-testid=message]')
const question = (page: Page) => page.locator('[data-testid=message][data-role=user]').last()
const lastReply = (page: Page) => page.locator('[data-testid=message][data-role=assistant]').last()

async function flow(page: Page, info: TestInfo, phone: string, tag: string, mobile: boolean) {
  await page.goto(`${server.url}/chat`)
  await loginAs(page, server, phone)
  const composer = page.getByTestId('composer')
  await composer.fill('第一个问题：灵犀是什么')
  await composer.press('Enter')
  await expect(lastReply(page)).toHaveAttribute('data-status', 'complete', { timeout: 30_000 })
  await expect(lastReply(page)).toContainText('第一个问题：灵犀是什么')
  // The demo model quotes the question: each reply says which question it answers.
  const oldReply = '第一个问题：灵犀是什么'

  // Escape leaves the question as it was.
  if (!mobile) await question(page).hover()
  await question(page).getByRole('button', { name: '编辑' }).click()
  const field = page.getByRole('textbox', { name: '编辑消息' })
  await expect(field).toBeFocused()
  await expect(field).toHaveValue('第一个问题：灵犀是什么')
  await field.press('Escape')
  await expect(field).toBeHidden()
  await expect(question(page).getByRole('button', { name: '编辑' })).toBeFocused()

  // Edit: the inline editor, Enter sends; a new reply to the edited question.
  await question(page).getByRole('button', { name: '编辑' }).click()
  await expect(field).toBeFocused()
  await field.fill('修改后的问题：灵犀能做什么')
  await snap(page, info, `${tag} editing`, 'chat-edit-')
  await axe(page, 'editing a question')
  await field.press('Enter')
  await expect(field).toBeHidden()
  await expect(question(page)).toContainText('修改后的问题：灵犀能做什么')
  await expect(lastReply(page)).toHaveAttribute('data-status', 'complete', { timeout: 30_000 })
  await expect(lastReply(page)).toContainText('修改后的问题：灵犀能做什么')
  await expect(messages(page)).toHaveCount(2)
  const versions = question(page).getByRole('group', { name: '消息版本' })
  await expect(versions).toContainText('2/2')
  await expect(versions.getByRole('button', { name: '下一个版本' })).toBeDisabled()
  await snap(page, info, `${tag} edited 2 of 2`, 'chat-edit-')
  await axe(page, 'a question with two versions')

  // Back to version 1: the old question and its reply.
  await versions.getByRole('button', { name: '上一个版本' }).click()
  await expect(question(page)).toContainText('第一个问题：灵犀是什么')
  await expect(question(page).getByRole('group', { name: '消息版本' })).toContainText('1/2')
  await expect(lastReply(page)).toContainText(oldReply)
  await expect(messages(page)).toHaveCount(2)
  // The focus stays on the switcher (the next version is the way back).
  await expect(question(page).getByRole('button', { name: '下一个版本' })).toBeFocused()
  await snap(page, info, `${tag} back to 1 of 2`, 'chat-edit-')

  // A reload shows the version chosen.
  await page.reload()
  await expect(question(page)).toContainText('第一个问题：灵犀是什么', { timeout: 20_000 })
  await expect(question(page).getByRole('group', { name: '消息版本' })).toContainText('1/2')
  await expect(lastReply(page)).toContainText(oldReply)

  // And forward again, by keyboard.
  await question(page).getByRole('button', { name: '下一个版本' }).focus()
  await page.keyboard.press('Enter')
  await expect(question(page)).toContainText('修改后的问题：灵犀能做什么')
  await expect(lastReply(page)).toContainText('修改后的问题：灵犀能做什么')
}

test('desktop: edit a question, get a new reply, switch back to 1/2, reload keeps it', async ({ page }, info) => {
  await page.setViewportSize({ width: 1280, height: 800 })
  await flow(page, info, '13800138501', 'desktop', false)
})

test('desktop, light theme', async ({ page }, info) => {
  await page.addInitScript(() => localStorage.setItem('lingxi-theme', 'light'))
  await page.setViewportSize({ width: 1280, height: 800 })
  await flow(page, info, '13800138502', 'desktop-light', false)
})

test.describe('on a phone', () => {
  test.use({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true })
  test('edit, switch and reload on a phone', async ({ page }, info) => {
    await flow(page, info, '13800138503', 'phone', true)
  })
})
