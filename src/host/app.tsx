import { useStore } from '@nanostores/react'
import { computed } from 'nanostores'
import { lazy, Suspense, useEffect, useRef, useState } from 'react'
import { $menu, activeMenuCode, guardRedirect } from '../core/menu'
import { $loginOpen, $permissionTree, $systemConfig, $token, $user, openLogin } from '../core/stores'
import { EVENT_NAVIGATE } from '../core/wire'
import type { ElementProps } from '../ui/define'
import { Logo, Spinner } from '../ui/icons'
import { MD, useMedia } from '../ui/use-media'
import type { Screen as ToolPage, Tool } from '../widgets/manifest'
import { tools } from '../widgets/tools'
import { BottomBar, Footer, HeaderButtons, Sidebar } from './menu'
import { accountBlock, type Refused } from './notice'
import { $location, navigate, startRouter } from './router'
import { matchRoute, type RouteInfo } from './routes'

const EntryScreen = lazy(() => import('./screens/entry'))
const ToolScreen = lazy(() => import('./screens/tool'))
const NotFoundScreen = lazy(() => import('./screens/not-found'))
const ShareScreen = lazy(() => import('./screens/share'))
const Notices = lazy(() => import('./notice-views'))
// The operator's announcements: asked for 3 s after the first screen, never in its way (announce.tsx).
const Announcements = lazy(() => import('./announce'))

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

  // Unknown paths land on /chat; a signed-in person only sees what their permissions allow, and is
  // told why when sent elsewhere (the notice stays until they leave the page they were sent to).
  const [refused, setRefused] = useState<Refused | null>(null)
  const [idle, setIdle] = useState(false)
  useEffect(() => void setTimeout(setIdle, 3000, true), [])
  useEffect(() => {
    if (!route) return navigate('/chat', true)
    // a visitor on a tool only signed-in people have (the order platforms): the tool shows, with why and a login
    if (!token && config && route.code && guardRedirect(pathname, menu, config)) return setRefused({ title: route.title, to: pathname, signedIn: false })
    if (!token || !tree || !config || route.kind === 'notFound' || route.kind === 'share') return
    const to = guardRedirect(pathname, menu, config)
    if (!to) return
    // the entry page sends a signed-in person to their first tool: nothing was refused there
    if (route.code) setRefused({ title: route.title, to, signedIn: true })
    navigate(to, true)
  }, [route, pathname, token, tree, config, menu])
  useEffect(() => {
    if (!refused) return
    if ((`${pathname}${search}` !== refused.to && pathname !== refused.to) || (token && !refused.signedIn)) setRefused(null)
  }, [refused, pathname, search, token])
  const blocked = accountBlock(route, user)
  const notices = (
    <Suspense fallback={null}>
      <Notices refused={refused} blocked={blocked} onClose={() => setRefused(null)} />
    </Suspense>
  )

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
      {/* the page's own link: the router takes #hash links, and the main area is in this shadow root */}
      {/* biome-ignore lint/a11y/useValidAnchor: a skip link is a link to a place on the page; the click moves the focus there */}
      <a
        href="#main"
        onClick={(e) => {
          e.preventDefault()
          mainRef.current?.focus()
        }}
        className="sr-only focus:not-sr-only"
      >
        {/* focused, a bar at the top of the page; its look on the span, which not-sr-only leaves alone */}
        <span className="block px-4 py-2 bg-primary text-primary-ink font-semibold">跳到主要内容</span>
      </a>
      <header className="sticky top-0 z-30 h-16 shrink-0 flex items-center gap-3 px-4 md:px-6 border-b border-line bg-bg/90 backdrop-blur">
        <a href="/" className="flex items-center gap-2 font-semibold text-lg">
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
            id="main"
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
                {(refused || blocked) && !fill && notices}
                {fill && (refused || blocked) ? (
                  <div className="h-full flex flex-col">
                    <div className="shrink-0 px-3 pt-3">{notices}</div>
                    <div className="flex-1 min-h-0">
                      <Screen route={route} pathname={pathname} search={search} />
                    </div>
                  </div>
                ) : (
                  <Screen route={route} pathname={pathname} search={search} />
                )}
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
      {idle && (
        <Suspense fallback={null}>
          <Announcements />
        </Suspense>
      )}
      <lingxi-login />
    </div>
  )
}

function Screen({ route, pathname, search }: { route: RouteInfo | null; pathname: string; search: string }) {
  if (!route) return <Spinner />
  if (route.kind === 'entry') return <EntryScreen />
  if (route.kind === 'notFound') return <NotFoundScreen />
  if (route.kind === 'share') return <ShareScreen pathname={pathname} />
  const ToolPage = route.tool && screens.get(route.tool)?.Page
  return ToolPage ? <ToolPage route={route} pathname={pathname} search={search} /> : <ToolScreen route={route} />
}
