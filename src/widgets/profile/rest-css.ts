import { rest } from '../../styles/generated/profile.rest'
import { extendCss } from '../../ui/extend-css'

// The profile's sheet (in its entry) has the header button's rules; the rules only its menu, panel
// and theme control use (`deferred` in scripts/build-css.mjs) come with them, through this module
// (see deferred.ts).
extendCss('lingxi-profile', rest)
