import { useStore } from '@nanostores/react'
import { lazy, Suspense, useEffect } from 'react'
import { $token } from '../../core/stores'
import type { ElementProps } from '../../ui/define'
import { Icon, Spinner } from '../../ui/icons'
import { Canvas } from '../../ui/canvas'
import { InlineLogin, LoggedOut } from '../../ui/logged-out'
import { watchPainting } from './state'

// Each view is its own chunk: the element's entry only carries this switch.
const MjView = lazy(() => import('./mj'))
const SdView = lazy(() => import('./sd'))
const HelperView = lazy(() => import('./helper'))
const GalleryView = lazy(() => import('./gallery'))

export type PaintingView = 'mj' | 'sd' | 'helper' | 'gallery'

const VIEWS: Record<PaintingView, { title: string; blurb: string }> = {
  mj: { title: '登录后开始 AI 绘画', blurb: '输入描述，生成四宫格，放大、变体、平移。' },
  sd: { title: '登录后使用 SD 绘画', blurb: 'Stable Diffusion 文生图，参数尽在掌握。' },
  helper: { title: '登录后使用绘画助手', blurb: '点选中文词汇，拼出专业的提示词。' },
  gallery: { title: '登录后浏览画廊', blurb: '欣赏大家公开发布的 AI 作品。' }
}

export interface PaintingProps extends ElementProps {
  /** `mj` (default): Midjourney; `sd`: stable diffusion; `helper`: the prompt helper; `gallery`: published works. */
  view?: PaintingView | string
  /** A prompt to start /mj with (e.g. from `?prompt=`). */
  prompt?: string
}

/**
 * @summary AI painting: Midjourney jobs with progress, U/V/reroll/pan buttons, describe and blend
 * (`view="mj"`), stable diffusion (`view="sd"`), the prompt helper (`view="helper"`) and the
 * gallery (`view="gallery"`). Logged out, a login prompt.
 * @event lingxi-navigate - (window) 发送到绘画 / 做同款: detail `{path: '/mj?prompt=…'}`; the prompt is also handed over in the page-wide store, so a painting element on the same page takes it.
 * @csspart base - The element's root, painted with --lingxi-bg over its whole height (padding, corners…).
 * @csspart lightbox - The large-image dialog.
 * @cssproperty --lingxi-primary - Accent colour (default #fbab00).
 */
export function Painting({ view, prompt }: PaintingProps) {
  const token = useStore($token)
  const which: PaintingView = view === 'sd' || view === 'helper' || view === 'gallery' ? view : 'mj'

  // Jobs keep moving while any painting view is shown: channel events, else polling.
  useEffect(() => (token ? watchPainting() : undefined), [token])

  return (
    <Canvas>
      <div className="@container text-ink" data-view={which}>
        {token ? (
          <Suspense fallback={<Spinner label="加载中" />}>
            {which === 'mj' && <MjView prompt={prompt} />}
            {which === 'sd' && <SdView />}
            {which === 'helper' && <HelperView />}
            {which === 'gallery' && <GalleryView />}
          </Suspense>
        ) : (
          <LoggedOut
            icon={<Icon name={which === 'gallery' ? 'gallery' : 'painting'} className="size-7" />}
            title={VIEWS[which].title}
            blurb={VIEWS[which].blurb}
          />
        )}
        <InlineLogin />
      </div>
    </Canvas>
  )
}
