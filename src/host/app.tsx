import { useStore } from '@nanostores/react'
import { computed } from 'nanostores'
import { lazy, Suspense, useEffect, useRef, useState } from 'react'
import { $menu, activeMenuCode, guardRedirect } from '../core/permissions'
import { $loginOpen, $permissionTree, $systemConfig, $token, $user, openLogin } from '../core/stores'
import type { MenuItem } from '../core/types'
import { EVENT_NAVIGATE } from '../core/wire'
import type { ElementProps } from '../ui/define'
import { Icon, Logo, Spinner } from '../ui/icons'
import { MD, useMedia } from '../ui/use-media'
import type { HeaderCommands, Screen as ToolPage, Tool } from '../widgets/manifest'
import { tools } from '../widgets/tools'
import { $location, navigate, startRouter } from './router'
import { matchRoute, type RouteInfo } from './routes'

const EntryScreen = lazy(() => import('./screens/entry'))
const ToolScreen = lazy(() => import('./screens/tool'))
const NotFoundScreen = lazy(() => import('./screens/not-found'))

/** Calls `load` once; later calls get the same promise. */
function once<T>(load: () => Promise<T>): () => Promise<T> {
  let promise: Promise<T> | undefined
  return () => {
    promise ??= load()
    return promise
  }
}

// The header's elements, loaded when they first show: the login dialog when it first opens (a
// signed-in visit never needs it), the profile when someone is signed in.
const loadLogin = once(() => {
  preloadChunk('login.js')
  return import('../widgets/login/login.element')
})
const loadProfile = once(() => {
  preloadChunk('profile.js')
  return import('../widgets/profile/profile.element')
})

/** Each tool's page (and its element with it): `load` starts loading it, `Page` renders it. */
const screens = new Map<Tool, { load: () => Promise<{ default: ToolPage }>; Page: ToolPage }>(
  tools.flatMap((tool) => {
    if (!tool.screen) return []
    const load = once(tool.screen)
    return [[tool, { load, Page: lazy(load) }] as const]
  })
)

/** What the build lists in the page (`#lingxi-preload`, scripts/build.mjs): each route's screen chunks, each lazy chunk's imports. */
let preloads: { routes?: Record<string, string[]>; chunks?: Record<string, string[]> } | undefined
const preloaded = new Set<string>()

function listed(): NonNullable<typeof preloads> {
  if (!preloads) {
    try {
      preloads = JSON.parse(document.getElementById('lingxi-preload')?.textContent || '{}') ?? {}
    } catch {
      preloads = {}
    }
  }
  return preloads ?? {}
}

/**
 * Preloads a chunk the host imports lazily together with every chunk it imports (as
 * `modulepreload` links): all at once, not each level of imports after the one that names it.
 * Without the build's list (`npm run dev`) it does nothing and the imports come as they come.
 */
function preloadChunk(file: string): void {
  for (const name of listed().chunks?.[file] ?? []) {
    const href = new URL(name, import.meta.url).href
    if (preloaded.has(href)) continue
    preloaded.add(href)
    const link = document.createElement('link')
    link.rel = 'modulepreload'
    link.href = href
    document.head.append(link)
  }
}

/**
 * Starts loading a route's page at once, whatever else the page waits for (the session, the
 * permissions); rendering it later takes what has arrived.
 */
function preloadRoute(route: RouteInfo | null): void {
  const screen = route?.tool && screens.get(route.tool)
  if (!route || !screen) return
  for (const file of listed().routes?.[route.path] ?? []) preloadChunk(file)
  screen.load().catch(() => {})
}

/** What tools show while another route is on screen (the music's mini player), loaded when first shown. */
const bars = tools.flatMap((tool) => (tool.bar ? [{ tool, $visible: tool.bar.$visible, Bar: lazy(tool.bar.screen) }] : []))
/** Whether each bar has something to show, as one store. */
const $barsShown = computed(
  bars.map((b) => b.$visible),
  (...shown: boolean[]) => shown
)

/**
 * @summary The full Lingxi site: header, menu (sidebar on desktop, bottom bar on phones), footer
 * and the routed page area, composed of the same elements partners embed.
 */
export function App(_: ElementProps) {
  // Read the address after startSession() consumed any ?login= (it runs before the first render).
  useState(startRouter)
  const { pathname, search } = useStore($location)
  const token = useStore($token)
  const user = useStore($user)
  const tree = useStore($permissionTree)
  const config = useStore($systemConfig)
  const menu = useStore($menu)
  const desktop = useMedia(MD)
  const mainRef = useRef<HTMLElement>(null)
  const first = useRef(true)

  const route = matchRoute(pathname)
  preloadRoute(route)
  const loginOpen = useStore($loginOpen)
  if (loginOpen) loadLogin().catch(() => {})
  // With a token the profile shows as soon as user/info answers: its code comes meanwhile.
  if (token || user) loadProfile().catch(() => {})

  // Unknown paths land on /chat; a signed-in person only sees what their permissions allow.
  useEffect(() => {
    if (!route) return navigate('/chat', true)
    if (!token || !tree || !config || route.kind === 'notFound') return
    const to = guardRedirect(pathname, menu, config)
    if (to) navigate(to, true)
  }, [route, pathname, token, tree, config, menu])

  // A tool is not mounted where the guard is about to send the person elsewhere: it would call its
  // API once and get 403. On the first screen of a page load, a signed-in person's tool also waits
  // for the permission tree (loaded in parallel with the screen's code: preloadRoute above), at most 3 s.
  const guarded = Boolean(token && route?.code)
  const forbidden = guarded && Boolean(tree && config && guardRedirect(pathname, menu, config))
  const waiting = guarded && (!tree || !config)
  const [gaveUp, setGaveUp] = useState(false)
  useEffect(() => {
    if (!waiting) return
    const timer = setTimeout(() => setGaveUp(true), 3000)
    return () => clearTimeout(timer)
  }, [waiting])
  const shown = useRef(false)
  const hold = forbidden || (!shown.current && waiting && !gaveUp)
  if (!hold) shown.current = true

  // biome-ignore lint/correctness/useExhaustiveDependencies: pathname, not route: each navigation moves the focus to the page, also between two pages of one route
  useEffect(() => {
    document.title = route && route.kind !== 'entry' ? `${route.title} - 灵犀` : '灵犀 - AI 工具箱'
    if (first.current) first.current = false
    else mainRef.current?.focus({ preventScroll: true })
  }, [pathname])

  // Widgets ask for another page with lingxi-navigate (e.g. 开始对话 on a role opens /chat).
  useEffect(() => {
    const go = (event: CustomEvent<{ path?: unknown } | null>) => {
      const path = event.detail?.path
      if (typeof path === 'string' && path.startsWith('/') && !path.startsWith('//')) navigate(path)
    }
    addEventListener(EVENT_NAVIGATE, go as EventListener)
    return () => removeEventListener(EVENT_NAVIGATE, go as EventListener)
  }, [])

  const active = config ? activeMenuCode(pathname, menu, config) : null
  // A `fill` tool (the chat) fills the page area below the header (64) and above the bottom bar
  // (50 + its 1 px border): no page scroll, its content scrolls inside.
  const fill = route?.tool?.layout === 'fill'
  const header = route?.tool?.header
  const barsShown = useStore($barsShown)
  const shownBar = bars.find((b, i) => barsShown[i] && b.tool !== route?.tool)
  const bar = shownBar && (
    <Suspense fallback={null}>
      <shownBar.Bar />
    </Suspense>
  )
  // On a phone the bar is fixed above the bottom menu: the page area gives up its height (and a gap),
  // so nothing in it — the chat's input above all — lies under the bar.
  const phoneBar = !desktop && Boolean(shownBar)
  const barBox = useRef<HTMLDivElement>(null)
  const [barHeight, setBarHeight] = useState(0)
  useEffect(() => {
    const box = barBox.current
    if (!phoneBar || !box) return setBarHeight(0)
    const observer = new ResizeObserver(() => setBarHeight(box.offsetHeight))
    observer.observe(box)
    return () => observer.disconnect()
  }, [phoneBar])
  const reserve = phoneBar && barHeight > 0 ? barHeight + 8 : 0

  return (
    <div className="min-h-dvh bg-bg text-ink flex flex-col">
      <header className="sticky top-0 z-30 h-16 shrink-0 flex items-center gap-3 px-4 md:px-6 border-b border-line bg-bg/90 backdrop-blur">
        <a href="/" className="flex items-center gap-2 font-semibold text-lg" aria-label="灵犀首页">
          <Logo />
          {/* On a phone, a tool's header buttons may need the room (the chat's). */}
          <span className={header?.roomy && token && !desktop ? 'sr-only' : ''}>灵犀</span>
          <span className="hidden sm:inline text-xs font-normal text-muted mt-1">AI 工具箱</span>
        </a>
        {desktop && bar && <div className="flex-1 min-w-0 max-w-md mx-auto">{bar}</div>}
        <div className="ml-auto flex items-center gap-2">
          {header && token && !desktop && <HeaderButtons {...header} />}
          {user ? (
            <lingxi-profile />
          ) : (
            <button type="button" onClick={() => openLogin()} className="h-9 px-5 rounded-lg bg-primary text-primary-ink font-semibold hover:brightness-110">
              登录
            </button>
          )}
        </div>
      </header>
      <div className="flex-1 flex min-h-0">
        {desktop && <Sidebar menu={menu} active={active} pathname={pathname} />}
        <div className="flex-1 min-w-0 flex flex-col">
          <main
            ref={mainRef}
            tabIndex={-1}
            className={
              fill
                ? 'outline-none min-h-0 h-[calc(100dvh-115px-env(safe-area-inset-bottom))] md:h-[calc(100dvh-64px)]'
                : 'flex-1 outline-none px-4 py-6 md:px-8 md:py-8 min-h-[calc(100dvh-114px)] md:min-h-0'
            }
            style={
              reserve
                ? fill
                  ? { height: `calc(100dvh - 115px - env(safe-area-inset-bottom) - ${reserve}px)` }
                  : { paddingBottom: `${reserve + 16}px` }
                : undefined
            }
          >
            {hold ? (
              <Spinner label="页面加载中" />
            ) : (
              <Suspense fallback={<Spinner label="页面加载中" />}>
                <Screen route={route} pathname={pathname} search={search} />
              </Suspense>
            )}
          </main>
          {desktop && !fill && <Footer />}
        </div>
      </div>
      {!desktop && <BottomBar menu={menu} active={active} pathname={pathname} />}
      {phoneBar && (
        <div ref={barBox} className="fixed inset-x-2 z-30 bottom-[calc(56px+env(safe-area-inset-bottom))]">
          {bar}
        </div>
      )}
      <lingxi-login />
    </div>
  )
}

function Screen({ route, pathname, search }: { route: RouteInfo | null; pathname: string; search: string }) {
  if (!route) return <Spinner />
  if (route.kind === 'entry') return <EntryScreen />
  if (route.kind === 'notFound') return <NotFoundScreen />
  const ToolPage = route.tool && screens.get(route.tool)?.Page
  return ToolPage ? <ToolPage route={route} pathname={pathname} search={search} /> : <ToolScreen route={route} />
}

/** A tool's controls in the phone header (the chat's, hot news'): its element listens for `event`. */
function HeaderButtons({ label, event, commands }: HeaderCommands) {
  return (
    <fieldset className="min-w-0 flex items-center" aria-label={label}>
      {commands.map(([command, name, d]) => (
        <button
          key={command}
          type="button"
          aria-label={name}
          title={name}
          onClick={() => dispatchEvent(new CustomEvent(event, { detail: { command } }))}
          className="size-9 grid place-items-center rounded-lg text-muted hover:text-ink hover:bg-raised"
        >
          <svg
            viewBox="0 0 24 24"
            className="size-5"
            fill="none"
            stroke="currentColor"
            strokeWidth="1.8"
            strokeLinecap="round"
            strokeLinejoin="round"
            aria-hidden="true"
          >
            <path d={d} />
          </svg>
        </button>
      ))}
    </fieldset>
  )
}

function visible(menu: MenuItem[]) {
  return menu.filter((m) => !m.hidden)
}

function Sidebar({ menu, active, pathname }: { menu: MenuItem[]; active: string | null; pathname: string }) {
  return (
    <nav aria-label="工具菜单" className="w-52 shrink-0 border-r border-line px-3 py-4 sticky top-16 h-[calc(100dvh-64px)] overflow-y-auto flex flex-col gap-1">
      {visible(menu).map((item) => (
        <a
          key={item.permissionCode}
          href={item.path}
          aria-current={active === item.permissionCode ? 'page' : undefined}
          className={`flex items-center gap-3 h-11 px-3 rounded-lg transition-colors ${
            active === item.permissionCode ? 'bg-primary/15 text-primary font-medium' : 'text-muted hover:text-ink hover:bg-raised'
          }`}
        >
          <Icon name={item.icon} />
          <span>{item.permissionName}</span>
        </a>
      ))}
      <a
        href="/usercenter?id=general"
        aria-current={pathname === '/usercenter' ? 'page' : undefined}
        className={`mt-auto flex items-center gap-3 h-11 px-3 rounded-lg ${
          pathname === '/usercenter' ? 'bg-primary/15 text-primary font-medium' : 'text-muted hover:text-ink hover:bg-raised'
        }`}
      >
        <Icon name="center" />
        <span>个人中心</span>
      </a>
    </nav>
  )
}

function BottomBar({ menu, active, pathname }: { menu: MenuItem[]; active: string | null; pathname: string }) {
  const item = (key: string, href: string, icon: string, label: string, on: boolean) => (
    <a
      key={key}
      href={href}
      aria-current={on ? 'page' : undefined}
      className={`flex-1 min-w-14 shrink-0 flex flex-col items-center justify-center gap-0.5 text-[11px] ${on ? 'text-primary' : 'text-muted'}`}
    >
      <Icon name={icon} className="size-5" />
      <span className="whitespace-nowrap">{label}</span>
    </a>
  )
  // The tools scroll sideways when there are many; 我的 (the personal center) stays in reach, and
  // the current tool is scrolled into view (图床, seventh of seven, would otherwise sit off-screen).
  const strip = useRef<HTMLDivElement>(null)
  // biome-ignore lint/correctness/useExhaustiveDependencies: active, menu: what the strip shows; the effect reads their result in the DOM
  useEffect(() => {
    const current = strip.current?.querySelector<HTMLElement>('[aria-current="page"]')
    if (!current || !strip.current) return
    const box = strip.current
    const left = current.offsetLeft - box.offsetLeft
    if (left < box.scrollLeft || left + current.offsetWidth > box.scrollLeft + box.clientWidth) {
      box.scrollLeft = left - (box.clientWidth - current.offsetWidth) / 2
    }
  }, [active, menu])
  return (
    <nav
      aria-label="工具菜单"
      data-testid="bottom-bar"
      className="sticky bottom-0 z-30 h-[50px] pb-[env(safe-area-inset-bottom)] box-content border-t border-line bg-bg/95 backdrop-blur flex"
    >
      <div ref={strip} className="flex-1 min-w-0 flex overflow-x-auto [scrollbar-width:none]">
        {visible(menu).map((m) => item(m.permissionCode, m.path, m.icon, m.permissionName, active === m.permissionCode))}
      </div>
      <div className="flex w-16 shrink-0 border-l border-line">{item('center', '/usercenter?id=general', 'user', '我的', pathname === '/usercenter')}</div>
    </nav>
  )
}

function Footer() {
  return (
    <footer className="px-8 py-5 border-t border-line text-xs text-muted flex flex-wrap gap-x-4 gap-y-1">
      <span>© {new Date().getFullYear()} 灵犀 AI 工具箱</span>
      <a href="/license.html" target="_blank" rel="noopener" className="hover:text-ink">
        服务条款
      </a>
      <span>AI 生成内容仅供参考</span>
    </footer>
  )
}
