import { mkdirSync, readFileSync } from 'node:fs'
import { expect, type Locator, type Page, type TestInfo } from '@playwright/test'
import type { LingxiServer } from './server'

// Shared by the embed-*.spec.ts files: the example pages, logging in inside a widget, and
// screenshots that go to the report and to /tmp/shots for a person to look at.

export const example = (name: string) => readFileSync(new URL(`../../examples/${name}`, import.meta.url), 'utf8')

/** An example page pointed at this server. */
export const page = (name: string, server: LingxiServer) => example(name).replaceAll('LINGXI_ORIGIN', server.url)

/** Attaches a viewport screenshot to the report and keeps a copy as /tmp/shots/embed-<name>.png. */
export async function snap(p: Page, info: TestInfo, name: string) {
  mkdirSync('/tmp/shots', { recursive: true })
  await p.waitForTimeout(400) // entrance animations end
  const body = await p.screenshot({ path: `/tmp/shots/embed-${name}.png` })
  await info.attach(name, { body, contentType: 'image/png' })
}

/** The login dialog (there must be exactly one open on the page). */
export const loginDialog = (p: Page) => p.getByRole('dialog', { name: '手机号登录' })

/** Completes the open login dialog with the code the console SMS provider printed. */
export async function completeLogin(p: Page, server: LingxiServer, phone: string) {
  const dialog = loginDialog(p)
  await expect(dialog).toBeVisible()
  await dialog.getByLabel('手机号').fill(phone)
  await dialog.getByRole('checkbox').check()
  const mark = server.output().length
  await dialog.getByRole('button', { name: '获取验证码' }).click()
  await dialog.getByLabel('验证码').fill(await server.smsCode(phone, mark))
  await dialog.getByRole('button', { name: '登录', exact: true }).click()
  await expect(dialog).toBeHidden()
}

/** Asks a question in a chat (an element or its panel) and waits for the streamed reply to finish. */
export async function ask(chat: Locator, question: string) {
  const replies = chat.locator('[data-testid=message][data-role=assistant]')
  const before = await replies.count()
  await chat.getByTestId('composer').fill(question)
  await chat.getByTestId('composer').press('Enter')
  await expect(chat.locator('[data-testid=message][data-role=user]').last()).toContainText(question)
  await expect(replies).toHaveCount(before + 1)
  await expect(replies.last()).toHaveAttribute('data-status', 'complete', { timeout: 30_000 })
  return replies.last()
}

/** Every open <dialog> on the page, inside any open shadow root. */
export function openDialogs(p: Page): Promise<string[]> {
  return p.evaluate(() => {
    const found: string[] = []
    const walk = (root: Document | ShadowRoot) => {
      for (const d of root.querySelectorAll('dialog[open]')) found.push(d.getAttribute('aria-label') ?? '')
      for (const el of root.querySelectorAll('*')) if (el.shadowRoot) walk(el.shadowRoot)
    }
    walk(document)
    return found
  })
}
