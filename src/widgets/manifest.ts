import type { ReadableAtom } from 'nanostores'
import type { ComponentType } from 'react'
import type { BalanceKind } from '../core/allowances'

// The shape of a tool's manifest (src/widgets/<tool>/tool.ts). Everything else that knows a tool —
// the host's routes and menu, the loader's tag table, the npm entry, the custom-elements manifest,
// the size report — reads the list of manifests (tools.ts), never a tool's folder. Fields marked
// (build) are read by the build alone and left out of the browser bundles (rollup.config.mjs).
// Walkthrough: docs/adding-a-tool.md.

/** One address of a tool on the host site. */
export interface ToolRoute {
  /** `/chat`; a detail route is its base path and takes `params` more segments (`/orders/ordersDetail/{id}/{id}`). */
  path: string
  /** The page title (the menu entry's name is system.json's). */
  title: string
  /** The permission code that opens it; none: always reachable (the user center). */
  code?: string
  /** An icon name of src/ui/icons.tsx. */
  icon: string
  /** (build) One line on the entry page and the coming-soon page (src/host/blurbs.ts). */
  blurb: string
  /** Segments after `path` the route takes (ids); the path alone then leads nowhere. */
  params?: number
  /**
   * (build) The menu entry of its code:
   * - `hidden`: routable but not listed (AI_TOOLS_SD), and not on a logged-out visitor's menu;
   * - `signed-in`: listed only from the permission tree, never on a logged-out visitor's menu.
   */
  menu?: 'hidden' | 'signed-in'
  /** (build) The permission code whose menu entry is highlighted here, when it is not this route's own. */
  highlights?: string
}

/** What the host passes to a tool's screen. */
export interface ScreenProps {
  route: ToolRoute
  pathname: string
  /** The query string (`?id=card`). */
  search: string
}

export type Screen = ComponentType<ScreenProps>

/** Buttons in the host's header on phones that drive the tool's element through a window event. */
export interface HeaderCommands {
  /** The group's accessible name. */
  label: string
  /** The window event, with detail `{command}`. */
  event: string
  /** [command, label, SVG path of the 24×24 icon] */
  commands: [command: string, label: string, path: string][]
  /** The buttons need the header's room: the site's name is left to screen readers. */
  roomy?: boolean
}

export interface Tool {
  /** (build) `lingxi-<folder>`: the element, its CDN chunk (`<folder>.js`) and its registration (`<folder>.element.ts`). */
  tag: `lingxi-${string}`
  /** Its pages on the host site (none: an element only, such as the login). */
  routes?: ToolRoute[]
  /** The host's page for the routes, loaded with the first of them. Without one, a coming-soon page. */
  screen?: () => Promise<{ default: Screen }>
  /** `fill`: the page area is the tool's alone (no page scroll, no footer). */
  layout?: 'fill'
  header?: HeaderCommands
  /** Something the host shows on the tool's behalf while another route is on screen (the music's mini player). */
  bar?: { $visible: ReadableAtom<boolean>; screen: () => Promise<{ default: ComponentType }> }
  /**
   * (build) The npm package exports the tool's component (`Chat` for src/widgets/chat/: its folder's
   * index.ts exports it under that name) in a shadow root, with the rest of index.ts as it is;
   * these are further components of index.ts, exported the same way.
   */
  npm?: string[]
  /** (build) The allowance kinds it charges (and shows). */
  allowances?: BalanceKind[]
}
