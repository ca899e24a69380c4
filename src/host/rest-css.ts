import { rest } from '../styles/generated/app.rest'
import { extendCss } from '../ui/extend-css'

// The host's sheet (in its entry) has the rules of the header and the menus; the rules only its
// lazily loaded screens and notices use (`deferred` in scripts/build-css.mjs) come with the first
// of them, through this module, before it renders.
extendCss('lingxi-app', rest)
