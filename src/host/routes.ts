import type { Tool, ToolRoute } from '../widgets/manifest'
import { tools } from '../widgets/tools'

/** A route of the site: a tool's (from its manifest, src/widgets/<tool>/tool.ts) or the host's own. */
export interface RouteInfo extends ToolRoute {
  kind: 'entry' | 'tool' | 'notFound' | 'share'
  /** The tool it shows. */
  tool?: Tool
}

/** The route table of the spec (section 2): the entry page, every route of `list`, and /404. */
export function hostRoutes(list: readonly Tool[]): RouteInfo[] {
  return [
    { path: '/', title: '灵犀 AI 工具箱', icon: 'home', blurb: '', kind: 'entry' },
    ...list.flatMap((tool) => (tool.routes ?? []).map((route): RouteInfo => ({ ...route, kind: 'tool', tool }))),
    // a shared chat topic, for anyone (screens/share.tsx)
    { path: '/share', title: '对话分享', icon: 'chat', blurb: '', kind: 'share', params: 1 },
    { path: '/404', title: '页面不存在', icon: 'spark', blurb: '', kind: 'notFound' }
  ]
}

export const routes = hostRoutes(tools)

/** The route for a pathname: exact paths, and detail routes with exactly their number of ids. */
export function matchRoute(pathname: string, table: RouteInfo[] = routes): RouteInfo | null {
  const path = pathname.length > 1 ? pathname.replace(/\/+$/, '') : pathname
  for (const route of table) {
    if (!route.params) {
      if (route.path === path) return route
      continue
    }
    const ids = path.startsWith(`${route.path}/`) ? path.slice(route.path.length + 1).split('/') : []
    if (ids.length === route.params && ids.every(Boolean)) return route
  }
  return null
}
