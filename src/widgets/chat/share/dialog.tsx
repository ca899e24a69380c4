import { useStore } from '@nanostores/react'
import { useEffect, useRef, useState } from 'react'
import { ApiError } from '../../../core/api'
import { copyText } from '../../../core/format'
import { formatTime } from '../../../core/time'
import { Dialog } from '../../../ui/dialog'
import { exportMarkdown, fileName, loadTopic, save } from '../export/markdown'
import { report } from '../notice'
import { $topics } from '../state'
import { type ChatShare, createShare, listShares, revokeShare, shareUrl } from './api'

const button =
  'inline-flex items-center justify-center gap-1.5 h-9 px-3 rounded-lg border border-line text-sm text-ink hover:border-primary hover:text-primary disabled:opacity-50 disabled:pointer-events-none'
const primary =
  'inline-flex items-center justify-center h-9 px-4 rounded-lg bg-primary text-primary-ink text-sm font-semibold hover:brightness-110 disabled:opacity-50'

/**
 * 导出与分享 of one topic: the topic as a Markdown file or a long PNG, its share links (create,
 * copy, open, revoke) and every link of the account. Loaded on first use (share/slot.tsx).
 */
export default function ShareDialog({ topicId, onClose }: { topicId: string; onClose: () => void }) {
  const topics = useStore($topics)
  const topic = topics?.find((t) => t.topicId === topicId)
  const [shares, setShares] = useState<ChatShare[] | null>(null)
  const [busy, setBusy] = useState<string | null>(null)
  const [status, setStatus] = useState('')
  const [confirming, setConfirming] = useState<string | null>(null)
  const ref = useRef<HTMLDivElement>(null)

  useEffect(() => {
    listShares().then((page) => setShares(page.list), report)
  }, [])
  useEffect(() => {
    if (topics && !topic) onClose()
  }, [topics, topic, onClose])
  if (!topic) return null

  const mine = shares?.filter((s) => s.topicId === topicId) ?? []
  const others = shares?.filter((s) => s.topicId !== topicId) ?? []

  async function run(what: string, work: () => Promise<string | undefined>) {
    setBusy(what)
    setStatus('')
    try {
      const done = await work()
      if (done) setStatus(done)
    } catch (error) {
      // said here too: a toast may sit under the modal's backdrop
      setStatus(error instanceof ApiError ? error.message : '操作失败，请稍后重试')
      report(error)
    } finally {
      setBusy(null)
    }
  }

  const handleMarkdown = () =>
    run('md', async () => {
      await exportMarkdown(topic)
      return '已导出 Markdown 文件'
    })

  const handlePng = () =>
    run('png', async () => {
      setStatus('正在生成图片…')
      const data = await loadTopic(topic)
      const { topicPng } = await import('../export/png')
      const png = await topicPng(data, ref.current ?? document.body)
      save(png.blob, fileName(topic.name, 'png'))
      return png.left > 0 ? `已导出图片（最近 ${png.drawn} 条消息，更早的 ${png.left} 条请导出 Markdown）` : '已导出图片'
    })

  const handleCreate = () =>
    run('share', async () => {
      const made = await createShare(topic.topicId)
      setShares((list) => [made, ...(list ?? [])])
      await copyText(shareUrl(made.path))
      return '已创建分享链接'
    })

  async function handleRevoke(share: ChatShare) {
    if (confirming !== share.shareId) return setConfirming(share.shareId)
    setConfirming(null)
    await run(`revoke:${share.shareId}`, async () => {
      await revokeShare(share.shareId)
      setShares((list) => list?.filter((s) => s.shareId !== share.shareId) ?? null)
      return '已撤销分享，链接已失效'
    })
  }

  const row = (share: ChatShare, withTitle: boolean) => {
    const url = shareUrl(share.path)
    return (
      <li key={share.shareId} data-testid="share-link" className="rounded-lg border border-line p-3 flex flex-col gap-2">
        {withTitle && <p className="truncate text-sm font-semibold">{share.title}</p>}
        <input
          readOnly
          value={url}
          aria-label={`分享链接（${formatTime(share.createTime)}）`}
          onFocus={(e) => (e.target as HTMLInputElement).select()}
          className="w-full h-9 px-2.5 rounded-md border border-line bg-raised text-sm text-ink outline-none focus:border-primary"
        />
        <div className="flex flex-wrap items-center gap-2">
          <span className="text-xs text-muted mr-auto">
            {formatTime(share.createTime)} · {share.messageCount} 条消息
          </span>
          <button type="button" className={button} onClick={() => copyText(url)}>
            复制链接
          </button>
          <a className={button} href={url} target="_blank" rel="noopener noreferrer">
            打开
          </a>
          <button
            type="button"
            className={`${button} ${confirming === share.shareId ? 'border-danger text-danger' : ''}`}
            disabled={busy === `revoke:${share.shareId}`}
            onClick={() => handleRevoke(share)}
            onBlur={() => setConfirming((c) => (c === share.shareId ? null : c))}
          >
            {confirming === share.shareId ? '确认撤销' : '撤销'}
          </button>
        </div>
      </li>
    )
  }

  return (
    <Dialog open onClose={onClose} title="导出与分享" placement="center" width={480} part="share-dialog">
      <div ref={ref} className="flex flex-col gap-5 text-sm">
        <p className="-mt-3 truncate text-muted">话题：{topic.name}</p>
        <section aria-labelledby="lx-export-title" className="flex flex-col gap-2">
          <h3 id="lx-export-title" className="font-semibold">
            导出
          </h3>
          <div className="flex flex-wrap gap-2">
            <button type="button" className={button} disabled={busy !== null} onClick={handleMarkdown} data-autofocus="">
              导出 Markdown
            </button>
            <button type="button" className={button} disabled={busy !== null} onClick={handlePng}>
              {busy === 'png' ? '正在生成图片…' : '导出图片（PNG）'}
            </button>
          </div>
        </section>
        <section aria-labelledby="lx-share-title" className="flex flex-col gap-2">
          <h3 id="lx-share-title" className="font-semibold">
            分享链接
          </h3>
          <p className="text-xs text-muted">
            链接展示的是创建时的对话快照，之后的新消息不会出现；任何拿到链接的人无需登录即可查看，不会看到你的手机号和其他话题。可随时撤销。
          </p>
          {mine.length > 0 && <ul className="flex flex-col gap-2">{mine.map((s) => row(s, false))}</ul>}
          <div>
            <button type="button" className={primary} disabled={busy !== null} onClick={handleCreate}>
              {mine.length > 0 ? '生成新的分享链接' : '创建分享链接'}
            </button>
          </div>
        </section>
        {others.length > 0 && (
          <details className="rounded-lg border border-line px-3 py-2">
            <summary className="cursor-pointer select-none">我的其他分享（{others.length}）</summary>
            <ul className="mt-2 flex flex-col gap-2">{others.map((s) => row(s, true))}</ul>
          </details>
        )}
        <p role="status" className="min-h-5 text-xs text-muted">
          {status}
        </p>
      </div>
    </Dialog>
  )
}
