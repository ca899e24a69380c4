import { useStore } from '@nanostores/react'
import { lazy, Suspense, useEffect } from 'react'
import { $loginOpen, $token, openLogin, watchPainting } from '../../core'
import type { ElementProps } from '../../ui/define'
import { Icon, Spinner } from '../../ui/icons'

const LoginDialog = lazy(() => import('../../ui/login/login-dialog').then((m) => ({ default: m.LoginDialog })))
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
  gallery: { title: '登录后浏览画廊', blurb: '欣赏大家公开发布的 AI 作品。' },
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
 * @csspart lightbox - The large-image dialog.
 * @cssproperty --lingxi-primary - Accent colour (default #fbab00).
 */
export function Painting({ view, prompt }: PaintingProps) {
  const token = useStore($token)
  const loginOpen = useStore($loginOpen)
  const which: PaintingView = view === 'sd' || view === 'helper' || view === 'gallery' ? view : 'mj'

  // Jobs keep moving while any painting view is shown: channel events, else polling.
  useEffect(() => (token ? watchPainting() : undefined), [token])

  return (
    <div className="text-ink" data-view={which}>
      {token ? (
        <Suspense fallback={<Spinner label="加载中" />}>
          {which === 'mj' && <MjView prompt={prompt} />}
          {which === 'sd' && <SdView />}
          {which === 'helper' && <HelperView />}
          {which === 'gallery' && <GalleryView />}
        </Suspense>
      ) : (
        <div className="py-16 flex flex-col items-center gap-2 text-center">
          <span className="size-14 grid place-items-center rounded-2xl bg-primary/15 text-primary">
            <Icon name={which === 'gallery' ? 'gallery' : 'painting'} className="size-7" />
          </span>
          <h2 className="mt-2 text-lg font-semibold">{VIEWS[which].title}</h2>
          <p className="text-sm text-muted">{VIEWS[which].blurb}</p>
          <button type="button" onClick={() => openLogin()} className="mt-3 h-10 px-6 rounded-lg bg-primary text-primary-ink font-semibold hover:brightness-110">
            登录
          </button>
        </div>
      )}
      {(!token || loginOpen) && (
        <Suspense fallback={null}>
          <LoginDialog />
        </Suspense>
      )}
    </div>
  )
}
