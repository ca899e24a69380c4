import { useEffect, useRef, useState, type ComponentType, type CSSProperties } from 'react'
import { createPortal } from 'react-dom'
import type { ElementProps } from '../ui/define'
import { css as fullCss } from '../styles/generated/full'
import { adoptStyles, registerCss } from '../ui/styles'

export interface ShadowProps {
  /** Class of the host `<div>` (layout only: the inside is styled by Lingxi's own sheet). */
  className?: string
  style?: CSSProperties
}

/**
 * Renders a Lingxi component inside its own shadow root, as the custom elements do, so a React
 * app's CSS and Lingxi's styles never meet. SSR renders the empty host; the inside mounts on the
 * client.
 */
export function withShadow<P extends object>(Inner: ComponentType<P & ElementProps>, name: string) {
  function Shadowed(props: P & ShadowProps) {
    const { className, style, ...rest } = props
    const hostRef = useRef<HTMLDivElement>(null)
    const [root, setRoot] = useState<ShadowRoot | null>(null)
    useEffect(() => {
      const host = hostRef.current
      if (!host) return
      const shadow = host.shadowRoot ?? host.attachShadow({ mode: 'open' })
      registerCss('*', fullCss)
      adoptStyles(shadow)
      setRoot(shadow)
    }, [])
    return (
      <div ref={hostRef} className={className} style={style} data-lingxi={name}>
        {root && createPortal(<Inner {...(rest as P)} container={root} />, root)}
      </div>
    )
  }
  Shadowed.displayName = `Lingxi(${name})`
  return Shadowed
}
