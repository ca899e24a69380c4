import { css } from '../../src/styles/generated/full'
import { registerCss } from '../../src/ui/styles'

registerCss('*', css)
