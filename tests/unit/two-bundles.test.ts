// @vitest-environment happy-dom
import { dirname, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build, type Plugin } from 'esbuild'
import { beforeAll, describe, expect, it } from 'vitest'
import { menuDefine } from '../../scripts/tools.mjs'
import type * as Core from '../../src/core'
import type { installGlobalListeners } from '../../src/core/events'
import type { buildMenu } from '../../src/core/menu'
import { fullTree, node, systemConfig, user } from './helpers/fixtures'

/** The public core, plus two internals every bundle carries. */
type CoreModule = typeof Core & { installGlobalListeners: typeof installGlobalListeners; buildMenu: typeof buildMenu }
const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..')

/** Replaces shared() with a plain factory call: what a bundle that bypassed the anchor would do. */
const bypassShared: Plugin = {
  name: 'bypass-shared',
  setup(b) {
    b.onLoad({ filter: /src[\\/]core[\\/]shared\.ts$/ }, () => ({
      loader: 'ts',
      contents: `export const anchor = () => ({ v: 1, registry: {} })
export function shared<T>(_key: string, create: () => T): T { return create() }`
    }))
  }
}

/** Builds a separate IIFE bundle of core (like a CDN widget chunk) that exposes it on globalThis[name]. */
async function bundle(name: string, plugins: Plugin[] = []): Promise<string> {
  const result = await build({
    stdin: {
      contents: `import * as core from './src/core/index.ts'
import { installGlobalListeners } from './src/core/events.ts'
import { buildMenu } from './src/core/menu.ts'
globalThis[${JSON.stringify(name)}] = { ...core, installGlobalListeners, buildMenu }`,
      resolveDir: root,
      loader: 'ts'
    },
    bundle: true,
    format: 'iife',
    platform: 'browser',
    write: false,
    define: { 'process.env.NODE_ENV': '"production"', __LINGXI_MENU__: menuDefine },
    plugins,
    logLevel: 'silent'
  })
  return result.outputFiles[0]!.text
}

const g = globalThis as unknown as Record<string, CoreModule>
let A: CoreModule
let B: CoreModule
let Bypassed: CoreModule

beforeAll(async () => {
  delete (globalThis as Record<symbol, unknown>)[Symbol.for('lingxi.v1')]
  const [a, b, c] = await Promise.all([bundle('__lingxiA'), bundle('__lingxiB'), bundle('__lingxiBypassed', [bypassShared])])
  expect(a).not.toBe('') // two real, separate builds…
  expect(a.length).toBeGreaterThan(5000)
  // …evaluated in the same window, one after the other, as two <script>s would be.
  new Function(a)()
  new Function(b)()
  new Function(c)()
  A = g.__lingxiA!
  B = g.__lingxiB!
  Bypassed = g.__lingxiBypassed!
})

describe('two bundles on one page', () => {
  it('are two module instances (their own copies of the code)', () => {
    expect(A).not.toBe(B)
    expect(A.login).not.toBe(B.login)
    expect(A.buildMenu).not.toBe(B.buildMenu)
  })

  it('share one $user: a user set through A is seen by B, and B subscribers hear it', () => {
    const heard: unknown[] = []
    const unbind = B.$user.listen((u) => heard.push(u?.accountId ?? null))
    A.$user.set(user)
    expect(B.$user.get()).toEqual(user)
    A.$user.set(null)
    unbind()
    expect(heard).toEqual(['acc-1', null])
  })

  it("share the menu: a login through A's stores changes B's $menu and $allowedPaths", () => {
    A.$systemConfig.set(systemConfig)
    A.$token.set(null)
    expect(B.$menu.get().map((m) => m.permissionCode)).not.toContain('AI_TOOLS_ORDER_PLATFORM')
    const seen: string[][] = []
    const unbind = B.$menu.listen((menu) => seen.push(menu.map((m) => m.permissionCode)))
    A.$token.set('tok')
    A.$user.set(user)
    A.$permissionTree.set([node('AI_TOOLS_HOT'), node('AI_TOOLS_ORDER_PLATFORM')])
    unbind()
    expect(B.$menu.get().map((m) => m.permissionCode)).toEqual(['AI_TOOLS_HOT', 'AI_TOOLS_ORDER_PLATFORM'])
    expect(seen.at(-1)).toEqual(['AI_TOOLS_HOT', 'AI_TOOLS_ORDER_PLATFORM'])
    expect(B.$allowedPaths.get()).toEqual(['/hotNew', '/orders', '/orders/ordersDetail', '/usercenter'])
    A.$permissionTree.set(fullTree())
  })

  it('share config, dialogs and toasts', () => {
    A.configure({ apiBase: 'https://api.lingxi.test' })
    expect(B.$config.get().apiBase).toBe('https://api.lingxi.test')
    A.openLogin()
    expect(B.$loginOpen.get()).toBe('login')
    B.closeLogin()
    expect(A.$loginOpen.get()).toBe(false)
  })

  it('install the window listeners once between them', () => {
    A.installGlobalListeners()
    B.installGlobalListeners()
    B.toast('一条消息', 'info')
    expect(A.$toasts.get().map((t) => t.message)).toEqual(['一条消息'])
    A.dismissToast(A.$toasts.get()[0]!.id)
    expect(B.$toasts.get()).toEqual([])
  })

  it('agree on ApiError across copies of the class', () => {
    expect(new A.ApiError(50011005, 'x')).toBeInstanceOf(B.ApiError)
    expect(new B.NetworkError()).toBeInstanceOf(A.NetworkError)
    expect(new A.NetworkError()).not.toBeInstanceOf(B.ApiError)
  })

  it('control: a bundle that bypasses shared() sees none of it (so the tests above would fail)', () => {
    A.$user.set(user)
    expect(Bypassed.$user).not.toBe(A.$user)
    expect(Bypassed.$user.get()).toBeNull()
    expect(Bypassed.$menu.get()).toEqual([])
    A.$user.set(null)
  })
})
