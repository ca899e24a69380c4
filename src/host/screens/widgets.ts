import { lazy } from 'react'

/**
 * The screens that show a tool's element, by the `widget` key of routes.ts. Each loads with its
 * route (and its element chunk with it), so the first screen never pays for a tool it does not show.
 */
export const widgetScreens = {
  chat: lazy(() => import('./chat')),
  roles: lazy(() => import('./roles')),
  imageHost: lazy(() => import('./image-host')),
  music: lazy(() => import('./music')),
  hotNews: lazy(() => import('./hot-news')),
  painting: lazy(() => import('./painting')),
  orders: lazy(() => import('./orders')),
}

export type WidgetKey = keyof typeof widgetScreens
