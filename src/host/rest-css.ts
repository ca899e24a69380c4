import { rest } from '../styles/generated/app.rest'
import { extendCss } from '../ui/extend-css'

// The host's sheet (in its entry) has the rules of the header, the menus and every screen but the
// entry page; the entry page's own rules (`deferred` in scripts/build-css.mjs) come with it,
// through this module, before it renders.
extendCss('lingxi-app', rest)
