// @vitest-environment happy-dom
import type { ComponentType } from 'react'
import { act, createElement } from 'react'
import { hydrateRoot } from 'react-dom/client'
import { renderToString } from 'react-dom/server'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { $token, $user } from '../../src/core/stores'
import { user } from './helpers/fixtures'
import { resetCore } from './helpers/reset'

// examples/next-app (issue 16): Next.js is not installed in the repository, so this renders the
// example page's component tree as the App Router does — react-dom/server on the server, then
// hydrateRoot in the browser with a session restored from storage — and fails on any hydration
// error or warning. `lingxi` is the npm entry's source (src/npm/index.ts, an alias of vitest.config.ts).

const PAGE = '../../examples/next-app/app/page.tsx'

beforeEach(() => {
  // No Lingxi server here: the session's boot finds the network offline.
  vi.stubGlobal('fetch', () => Promise.reject(new TypeError('offline')))
  process.env.LINGXI_API = 'https://ai.example.com'
})
afterEach(() => {
  vi.unstubAllGlobals()
  resetCore()
})

describe('the Next.js example page', () => {
  it('hydrates the server HTML without a warning, then shows the restored session and fills the widgets', async () => {
    const { default: Page } = (await import(/* @vite-ignore */ PAGE)) as { default: ComponentType }
    $token.set(null)
    $user.set(null)
    const html = renderToString(createElement(Page))
    expect(html).toContain('<p data-testid="who">未登录</p>')
    expect(html.match(/data-lingxi="chat"/g)).toHaveLength(2)

    // the browser: the same HTML, a session restored from storage before React starts
    $token.set('session:restored')
    $user.set({ ...user, phone: '138****8000' })
    const container = document.createElement('div')
    container.innerHTML = html
    document.body.append(container)
    const errors: unknown[] = []
    const warnings: string[] = []
    const spy = vi.spyOn(console, 'error').mockImplementation((...args) => void warnings.push(args.map(String).join(' ')))
    ;(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true
    let root: ReturnType<typeof hydrateRoot> | undefined
    await act(async () => {
      root = hydrateRoot(container, createElement(Page), { onRecoverableError: (error) => errors.push(error) })
    })
    spy.mockRestore()
    expect(errors).toEqual([])
    expect(warnings.filter((w) => /hydrat|did not match|#418|#423|#425/i.test(w))).toEqual([])
    expect(container.querySelector('[data-testid=who]')!.textContent).toBe('已登录：138****8000')
    // the widgets' hosts are the server's, each with its shadow root filled on the client
    const hosts = container.querySelectorAll('[data-lingxi=chat]')
    expect(hosts).toHaveLength(2)
    for (const host of hosts) expect(host.shadowRoot).not.toBeNull()
    await act(async () => root?.unmount())
    container.remove()
  })
})
