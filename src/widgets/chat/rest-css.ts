import { rest } from '../../styles/generated/chat.rest'
import { extendCss } from '../../ui/extend-css'

// The chat's sheet (in its entry) has the utilities of the launcher, the panel and the
// conversation and the topic list; the rules only its deferred parts use (settings, the dialogs,
// the login dialog: `deferred` in scripts/build-css.mjs) come with them, through this module (see
// deferred.ts).
extendCss('lingxi-chat', rest)
