import { useState } from 'react'
import { notifyError } from '../../core/api'
import { toast } from '../../core/emit'
import { copyText } from '../../core/format'
import { Dialog } from '../../ui/dialog'
import { MD, useMedia } from '../../ui/use-media'
import { formatDuration, isWebUrl } from './actions'
import { downloadSong, extendSong, instrumentalSong, regenerateSong, setShared, shareUrl } from './song-actions'
import { MUSIC_LIMITS, type Song } from './state'

const button = 'h-9 px-4 rounded-lg text-sm font-medium aria-disabled:opacity-50'
const primary = `${button} bg-primary text-primary-ink hover:brightness-110`
const plain = `${button} border border-line hover:border-primary hover:text-primary`
const area = 'mt-2 w-full min-h-24 rounded-lg border border-line bg-raised p-3 text-sm leading-6 focus:border-primary outline-none'

/**
 * What can be done with one song: continue it from a chosen second, sing edited lyrics, an
 * instrumental version (each makes two new songs, 1 次 of the music allowance), a read-only share
 * link, and the MP3 and cover as files.
 */
export function SongMenu({ song, onClose }: { song: Song; onClose: () => void }) {
  const wide = useMedia(MD)
  const complete = song.status === 'complete' && Boolean(song.duration)
  const duration = song.duration ?? 0
  const [from, setFrom] = useState(() => Math.max(1, Math.floor(duration * 0.75)))
  const [more, setMore] = useState('')
  const [lyric, setLyric] = useState(song.lyric ?? '')
  const [busy, setBusy] = useState<string | null>(null)
  const [current, setCurrent] = useState(song)

  async function run(what: string, action: () => Promise<unknown>, done: string, close = true) {
    if (busy) return
    setBusy(what)
    try {
      await action()
      toast(done, 'success')
      if (close) onClose()
    } catch (error) {
      notifyError(error)
    } finally {
      setBusy(null)
    }
  }
  const link = current.sharePath ? shareUrl(current.sharePath) : null

  return (
    <Dialog open onClose={onClose} title={`《${song.title || '未命名'}》`} placement={wide ? 'center' : 'bottom'} width={520} part="song-menu">
      <div data-testid="song-menu" className="flex flex-col gap-5 text-sm">
        {!complete && <p className="rounded-lg bg-raised p-3 text-muted">歌曲生成完成后才能续写、分享和下载。</p>}
        <section aria-labelledby="lx-extend">
          <h3 id="lx-extend" className="font-semibold">
            续写
          </h3>
          <p className="text-xs text-muted">从选定的时间点接着唱，生成两首新歌（消耗 1 次音乐额度）。</p>
          <label className="mt-2 flex items-center gap-3">
            <span className="shrink-0">从</span>
            <input
              type="range"
              min={1}
              max={Math.max(1, Math.floor(duration) - 1)}
              step={1}
              value={from}
              disabled={!complete}
              aria-label="续写起点（秒）"
              aria-valuetext={`${formatDuration(from)}`}
              onInput={(e) => setFrom(Number((e.target as HTMLInputElement).value))}
              className="flex-1 accent-[var(--color-primary)]"
            />
            <span data-testid="extend-at" className="w-20 shrink-0 tabular-nums text-right">
              {formatDuration(from)} / {formatDuration(song.duration)}
            </span>
          </label>
          <textarea
            aria-label="续写部分的歌词（可不填）"
            placeholder="续写部分的歌词（可不填）"
            maxLength={MUSIC_LIMITS.lyric}
            value={more}
            onInput={(e) => setMore((e.target as HTMLTextAreaElement).value)}
            className={area}
          />
          <button
            type="button"
            className={`mt-2 ${primary}`}
            aria-disabled={!complete || busy !== null || undefined}
            onClick={() => complete && run('extend', () => extendSong(song, from, more), '已提交续写，新歌生成中')}
          >
            {busy === 'extend' ? '提交中…' : `从 ${formatDuration(from)} 续写`}
          </button>
        </section>

        <section aria-labelledby="lx-relyric">
          <h3 id="lx-relyric" className="font-semibold">
            改词重新生成
          </h3>
          <p className="text-xs text-muted">用这首歌的风格演唱修改后的歌词（消耗 1 次）。</p>
          <textarea
            aria-label="修改后的歌词"
            maxLength={MUSIC_LIMITS.lyric}
            value={lyric}
            onInput={(e) => setLyric((e.target as HTMLTextAreaElement).value)}
            className={`${area} min-h-32`}
          />
          <button
            type="button"
            className={`mt-2 ${primary}`}
            aria-disabled={!lyric.trim() || busy !== null || undefined}
            onClick={() => (lyric.trim() ? run('relyric', () => regenerateSong(song, lyric), '已按新歌词重新生成') : toast('请填写歌词', 'warning'))}
          >
            {busy === 'relyric' ? '提交中…' : '按新歌词生成'}
          </button>
        </section>

        {!song.instrumental && (
          <section aria-labelledby="lx-inst" className="flex flex-wrap items-center gap-3">
            <div className="flex-1 min-w-40">
              <h3 id="lx-inst" className="font-semibold">
                纯音乐版
              </h3>
              <p className="text-xs text-muted">同样的风格，不要人声（消耗 1 次）。</p>
            </div>
            <button
              type="button"
              className={plain}
              aria-disabled={busy !== null || undefined}
              onClick={() => run('inst', () => instrumentalSong(song), '已提交纯音乐版')}
            >
              {busy === 'inst' ? '提交中…' : '生成纯音乐版'}
            </button>
          </section>
        )}

        <section aria-labelledby="lx-share">
          <h3 id="lx-share" className="font-semibold">
            分享
          </h3>
          {link ? (
            <>
              <p className="text-xs text-muted">任何拿到链接的人都能收听（只读，不显示你的账号）。撤销后链接立即失效。</p>
              <div className="mt-2 flex flex-wrap gap-2">
                <input
                  readOnly
                  value={link}
                  aria-label="分享链接"
                  data-testid="share-link"
                  className="flex-1 min-w-0 h-9 rounded-lg border border-line bg-raised px-3 text-xs"
                />
                <button type="button" className={primary} onClick={() => void copyText(link)}>
                  复制链接
                </button>
                <button
                  type="button"
                  className={plain}
                  aria-disabled={busy !== null || undefined}
                  onClick={() => run('unshare', async () => setCurrent(await setShared(song, false)), '分享链接已撤销', false)}
                >
                  撤销分享
                </button>
              </div>
            </>
          ) : (
            <div className="mt-1 flex flex-wrap items-center gap-3">
              <p className="flex-1 min-w-40 text-xs text-muted">生成一个只读链接，对方无需登录即可收听。</p>
              <button
                type="button"
                className={plain}
                aria-disabled={!complete || busy !== null || undefined}
                onClick={() => complete && run('share', async () => setCurrent(await setShared(song, true)), '已生成分享链接', false)}
              >
                生成分享链接
              </button>
            </div>
          )}
        </section>

        <section aria-labelledby="lx-download" className="flex flex-wrap items-center gap-2">
          <h3 id="lx-download" className="font-semibold mr-auto">
            下载
          </h3>
          <button
            type="button"
            className={plain}
            aria-disabled={!complete || !isWebUrl(song.audioUrl) || undefined}
            onClick={() => complete && run('mp3', () => downloadSong(song, 'audio'), '已开始下载', false)}
          >
            {song.demo ? '下载音频（WAV）' : '下载 MP3'}
          </button>
          <button
            type="button"
            className={plain}
            aria-disabled={!complete || !isWebUrl(song.imageUrl) || undefined}
            onClick={() => complete && isWebUrl(song.imageUrl) && run('cover', () => downloadSong(song, 'cover'), '已开始下载', false)}
          >
            下载封面
          </button>
        </section>
      </div>
    </Dialog>
  )
}
