// @vitest-environment node
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { elements, entries } from '../../scripts/elements.mjs'
import { menuDefine, npmEntry } from '../../scripts/tools.mjs'
import { BALANCE_KINDS } from '../../src/core/allowances'
import { allowedPaths, buildMenu, defaultMenu, guardRedirect, USER_CENTER_PATH } from '../../src/core/menu'
import type { SystemConfig } from '../../src/core/types'
import { hostRoutes, matchRoute, routes } from '../../src/host/routes'
import { EVENT_CHAT_COMMAND } from '../../src/widgets/chat/state'
import { elementsOf, menuRules, npmSource, routesOf, tagTable } from '../../src/widgets/derive'
import { EVENT_HOT_COMMAND } from '../../src/widgets/hot-news/state'
import type { Tool } from '../../src/widgets/manifest'
import { tools } from '../../src/widgets/tools'
import { fullTree, node, systemConfig } from './helpers/fixtures'

// A tool is its folder and one entry in src/widgets/tools.ts: everything that knows tools derives
// from the list. These tests add a tool from its manifest alone and watch it appear everywhere.

const root = join(dirname(fileURLToPath(import.meta.url)), '../..')
const read = (file: string) => readFileSync(join(root, file), 'utf8')

/** A throwaway tool: a manifest, nothing else. */
const throwaway: Tool = {
  tag: 'lingxi-throwaway',
  routes: [
    { path: '/throwaway', title: '试用工具', code: 'AI_TOOLS_THROWAWAY', icon: 'spark', blurb: '只在这个测试里存在的工具。', menu: 'signed-in' },
    { path: '/throwaway/detail', params: 1, title: '试用详情', code: 'AI_TOOLS_THROWAWAY', icon: 'spark', blurb: '它的一条记录。' }
  ],
  screen: async () => ({ default: () => null }),
  allowances: ['tokens']
}
const list = [...tools, throwaway]

/** The server's side of a new tool: its one permission entry in system.json, and the permission tree. */
const config: SystemConfig = {
  ...systemConfig,
  permissionCodes: { ...systemConfig.permissionCodes, AI_TOOLS_THROWAWAY: { icon: 'spark', path: '/throwaway', permissionName: '试用工具' } }
}

describe('a tool added from its manifest alone', () => {
  it('gets its routes on the host site, detail routes with their ids', () => {
    const table = hostRoutes(list)
    expect(matchRoute('/throwaway', table)).toMatchObject({ kind: 'tool', title: '试用工具', code: 'AI_TOOLS_THROWAWAY', tool: throwaway })
    expect(matchRoute('/throwaway/detail/beijing', table)?.path).toBe('/throwaway/detail')
    expect(matchRoute('/throwaway/detail', table)).toBeNull()
    expect(matchRoute('/throwaway', routes)).toBeNull() // not in the real list
  })

  it('gets its element in the loader’s tag table and the CDN build', () => {
    expect(tagTable(list)).toContain('throwaway')
    expect(elementsOf(list).at(-1)).toEqual({ tag: 'lingxi-throwaway', file: 'throwaway', entry: 'src/widgets/throwaway/throwaway.element.ts' })
  })

  it('gets its component in the npm entry', () => {
    const source = npmSource(list)
    expect(source).toContain("import { Throwaway as ThrowawayComponent } from '../widgets/throwaway'")
    expect(source).toContain("export * from '../widgets/throwaway'")
    expect(source).toContain("export const Throwaway = /* @__PURE__ */ withShadow(ThrowawayComponent, 'throwaway')")
  })

  it('gets its menu entry once the server grants its code, and its menu rules', () => {
    const tree = [...fullTree(), node('AI_TOOLS_THROWAWAY')]
    expect(buildMenu(tree, config).map((m) => m.permissionCode)).toContain('AI_TOOLS_THROWAWAY')
    expect(buildMenu(fullTree(), config).map((m) => m.permissionCode)).not.toContain('AI_TOOLS_THROWAWAY')
    const [hidden, signedIn] = menuRules(list)
    expect(signedIn).toContain('AI_TOOLS_THROWAWAY')
    expect(hidden).not.toContain('AI_TOOLS_THROWAWAY')
  })

  it('is guarded by its permission code', () => {
    const granted = buildMenu([node('AI_TOOLS_CHAT'), node('AI_TOOLS_THROWAWAY')], config)
    const refused = buildMenu([node('AI_TOOLS_CHAT')], config)
    expect(allowedPaths(granted, config)).toContain('/throwaway')
    expect(guardRedirect('/throwaway/detail/beijing', granted, config)).toBeNull()
    expect(guardRedirect('/throwaway', refused, config)).toBe('/chat')
    // the host holds a route with a code until the permissions are known (src/host/app.tsx)
    expect(matchRoute('/throwaway/detail/beijing', hostRoutes(list))?.code).toBe('AI_TOOLS_THROWAWAY')
  })
})

describe('the list of tools', () => {
  it('names each tool after its folder, and each folder registers that element', () => {
    for (const { tag, file, entry } of elementsOf(tools)) {
      expect(tag).toBe(`lingxi-${file}`)
      expect(read(entry), entry).toMatch(new RegExp(`defineElement\\(\\s*'${tag}'`))
    }
  })

  it('is what the CDN build, the loader, the CSS build and custom-elements.json are made of', () => {
    expect(elements.map((e) => e.file)).toEqual(['app', ...tagTable(tools)])
    expect(entries.map((e) => e.file)).toEqual(['app', ...tagTable(tools), 'commands'])
    const manifest = JSON.parse(read('custom-elements.json')) as { modules: { declarations: { tagName: string }[] }[] }
    expect(manifest.modules.map((m) => m.declarations[0]!.tagName)).toEqual(elements.map((e) => e.tag))
  })

  it('is what the npm entry exports: src/npm/tools.ts is current (`node scripts/tools.mjs` writes it)', () => {
    expect(read('src/npm/tools.ts')).toBe(npmEntry())
  })

  it('is what the shared menu knows: the rules compiled into core', () => {
    expect(JSON.parse(menuDefine)).toEqual(menuRules(tools))
    expect(defaultMenu(systemConfig).map((m) => m.permissionCode)).not.toContain('AI_TOOLS_SD')
    expect(defaultMenu(systemConfig).map((m) => m.permissionCode)).not.toContain('AI_TOOLS_ORDER_PLATFORM')
  })

  it('gives every route an icon the host has, and the user center no permission code', () => {
    const icons = read('src/ui/icons.tsx')
    // The formatter may break a long path onto the next line: match the key, not the layout.
    for (const { route } of routesOf(tools)) expect(icons, route.icon).toMatch(new RegExp(`\\n\\s+${route.icon}:\\s+'`))
    expect(matchRoute(USER_CENTER_PATH)?.code).toBeUndefined()
  })

  it('charges only allowance kinds the client knows', () => {
    const kinds = BALANCE_KINDS.map((k) => k.kind)
    for (const tool of tools) for (const kind of tool.allowances ?? []) expect(kinds, tool.tag).toContain(kind)
  })

  it('names in the host’s header buttons the events the tools listen for', () => {
    const events = Object.fromEntries(tools.filter((t) => t.header).map((t) => [t.tag, t.header!.event]))
    expect(events).toEqual({ 'lingxi-chat': EVENT_CHAT_COMMAND, 'lingxi-hot-news': EVENT_HOT_COMMAND })
  })

  it('keeps the build-time fields out of what the browser reads (the CDN build leaves them out)', () => {
    for (const file of ['src/host/app.tsx', 'src/host/routes.ts', 'src/host/screens/entry.tsx', 'src/host/screens/tool.tsx']) {
      expect(read(file), file).not.toMatch(/\.(tag|npm|allowances|highlights|menu)\b/)
    }
  })

  it('keeps a new tool to its folder and its entry in the list', () => {
    // Named on purpose, nothing else: the host's header composes the profile and the login; the
    // loader adds a toaster and opens chat bubbles (lingxi('open')); the embed budget is the chat's.
    const named: Record<string, string[]> = {
      'src/host/app.tsx': ['lingxi-login', 'lingxi-profile'],
      'src/host/routes.ts': [],
      'src/loader/loader.ts': ['lingxi-toaster', 'lingxi-chat'],
      'src/npm/index.ts': [],
      'scripts/size.mjs': ['lingxi-chat'],
      'scripts/elements.mjs': [],
      'rollup.config.mjs': [],
      'tsup.config.ts': []
    }
    for (const [other, allowed] of Object.entries(named)) {
      const text = read(other)
      const found = elementsOf(tools)
        .filter(({ tag, file }) => new RegExp(`${tag}(?![\\w-])|widgets/${file}/`).test(text))
        .map((e) => e.tag)
      expect(found, other).toEqual(allowed.filter((tag) => found.includes(tag)))
      expect(found.length, other).toBe(allowed.length)
    }
  })
})
