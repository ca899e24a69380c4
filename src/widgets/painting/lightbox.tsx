import type { ReactNode } from 'react'
import { copyText } from '../../core/format'
import { Dialog } from '../../ui/dialog'

export interface LightboxImage {
  url: string
  width?: number | null
  height?: number | null
  prompt: string
  fileName: string
  /** A line under the image (author, size…). */
  caption?: ReactNode
  demo?: boolean
}

interface Props {
  image: LightboxImage | null
  onClose(): void
  /** Extra buttons (做同款, 发布到画廊…). */
  actions?: ReactNode
}

/** The image large, its prompt, download and copy; Esc, the close button or the backdrop closes it. */
export function Lightbox({ image, onClose, actions }: Props) {
  return (
    <Dialog open={image !== null} onClose={onClose} title="查看大图" placement="center" width={1100} part="lightbox">
      {image && (
        <div className="flex flex-col gap-4" data-testid="lightbox">
          <div className="relative grid place-items-center rounded-lg bg-black/40 overflow-hidden">
            <img
              src={image.url}
              alt={image.prompt || '图片'}
              width={image.width ?? undefined}
              height={image.height ?? undefined}
              className="max-w-full max-h-[70vh] w-auto h-auto object-contain"
            />
            {image.demo && (
              <span className="absolute top-2 right-2 px-2 py-0.5 rounded-full bg-black/60 text-white text-xs" title="由离线演示画师绘制">
                演示
              </span>
            )}
          </div>
          {image.prompt && <p className="text-sm break-words text-ink/90">{image.prompt}</p>}
          {image.caption && <p className="text-xs text-muted">{image.caption}</p>}
          <div className="flex flex-wrap gap-2">
            <a
              href={image.url}
              download={image.fileName}
              target="_blank"
              rel="noopener"
              className="h-10 px-4 inline-flex items-center rounded-lg bg-primary text-primary-ink font-semibold hover:brightness-110"
            >
              下载原图
            </a>
            {image.prompt && (
              <button
                type="button"
                onClick={() => copyText(image.prompt)}
                className="h-10 px-4 rounded-lg border border-line hover:border-primary hover:text-primary"
              >
                复制提示词
              </button>
            )}
            {actions}
          </div>
        </div>
      )}
    </Dialog>
  )
}
