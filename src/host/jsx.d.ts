// Lingxi's own elements, usable in the host's JSX.
import 'react'

type LingxiTag = React.DetailedHTMLProps<React.HTMLAttributes<HTMLElement>, HTMLElement> & Record<string, unknown>

declare module 'react' {
  namespace JSX {
    interface IntrinsicElements {
      'lingxi-login': LingxiTag
      'lingxi-profile': LingxiTag
      'lingxi-toaster': LingxiTag
      'lingxi-chat': LingxiTag
      'lingxi-roles': LingxiTag
    }
  }
}
