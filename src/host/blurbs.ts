import type { ToolRoute } from '../widgets/manifest'

/**
 * The CDN build leaves the manifests' blurbs out of the host's entry (`blurb` is build-only there,
 * rollup.config.mjs) and compiles them in here, which only the lazily loaded screens import: a
 * route's first visit does not pay for one line about every tool. Elsewhere (tests, npm, dev) the
 * manifests keep them.
 */
declare const __LINGXI_BLURBS__: Record<string, string> | undefined

export const blurbOf = (route: ToolRoute): string => (typeof __LINGXI_BLURBS__ === 'undefined' ? route.blurb : __LINGXI_BLURBS__[route.path]) ?? ''
