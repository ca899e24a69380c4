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
      'lingxi-painting': LingxiTag
      'lingxi-image-host': LingxiTag
      'lingxi-user-center': LingxiTag
      'lingxi-music': LingxiTag
      'lingxi-hot-news': LingxiTag
      'lingxi-orders': LingxiTag
    }
  }
}
