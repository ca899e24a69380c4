import { useStore } from '@nanostores/react'
import { useEffect, useState } from 'react'
import { notifyError } from '../../core/api'
import { confirm } from '../../core/emit'
import { deleteSong, formatDuration, isPlayable, loadSongs, pausePlayer, playSong, songProgress } from './actions'
import { Cover, DemoBadge, Glyph, IconButton } from './glyphs'
import { $player } from './player-state'
import { SongMenu } from './song-menu'
import { $songs, type Song } from './state'

const STATUS_TEXT: Record<Song['status'], string> = {
  submitted: '已提交',
  queued: '排队中',
  streaming: '生成中，可试听',
  complete: '已完成',
  error: '生成失败'
}

/** Re-renders every second while something is unfinished, so the estimated progress moves. */
function useTicking(on: boolean): number {
  const [now, setNow] = useState(() => Date.now())
  useEffect(() => {
    if (!on) return
    const timer = setInterval(() => setNow(Date.now()), 1000)
    return () => clearInterval(timer)
  }, [on])
  return now
}

/** My songs, newest first, the two clips of each request side by side in the order they came. */
export function SongList() {
  const songs = useStore($songs)
  const player = useStore($player)
  const now = useTicking(songs.list.some((s) => s.status !== 'complete' && s.status !== 'error'))
  const [menu, setMenu] = useState<Song | null>(null)

  async function handleDelete(song: Song) {
    if (!(await confirm({ title: '删除歌曲', message: `确定删除「${song.title || '未命名'}」吗？删除后无法恢复。`, confirmText: '删除' }))) return
    try {
      await deleteSong(song.songId)
    } catch (error) {
      notifyError(error)
    }
  }

  if (!songs.loaded) {
    return songs.loading ? (
      <div role="status" className="py-10 grid place-items-center gap-2 text-muted text-sm">
        <span className="lx-spinner" />
        加载歌曲…
      </div>
    ) : null
  }
  if (songs.list.length === 0) {
    return <p className="py-12 text-center text-muted text-sm">还没有歌曲。写一句描述，生成你的第一首歌吧。</p>
  }

  return (
    <div>
      <ul aria-label="我的歌曲" aria-busy={songs.loading || undefined} className="flex flex-col gap-2">
        {songs.list.map((song) => {
          const current = player.song?.songId === song.songId
          const playing = current && (player.status === 'playing' || player.status === 'loading')
          const progress = songProgress(song, now)
          const unfinished = song.status !== 'complete' && song.status !== 'error'
          return (
            <li
              key={song.songId}
              part="song"
              data-testid="song"
              data-song-id={song.songId}
              data-status={song.status}
              aria-current={current || undefined}
              className={`scroll-mt-20 flex items-center gap-3 p-2.5 rounded-xl border ${current ? 'border-primary/70 bg-primary/5' : 'border-line bg-surface'}`}
            >
              <div className="relative shrink-0">
                <Cover url={song.imageUrl} className="size-14 rounded-lg" />
                <button
                  type="button"
                  aria-label={`${playing ? '暂停' : '播放'}《${song.title || '未命名'}》`}
                  aria-disabled={!isPlayable(song) || undefined}
                  onClick={() => {
                    if (!isPlayable(song)) return
                    if (playing) pausePlayer()
                    else playSong(song.songId)
                  }}
                  className="absolute inset-0 grid place-items-center rounded-lg bg-black/35 text-white opacity-90 hover:bg-black/50 aria-disabled:opacity-0"
                >
                  <Glyph name={playing ? 'pause' : 'play'} filled className="size-6" />
                </button>
              </div>
              <div className="min-w-0 flex-1">
                <p className="flex items-center gap-1.5 font-medium">
                  <span className="truncate">{song.title || '未命名'}</span>
                  {song.demo && <DemoBadge />}
                  {song.instrumental && <span className="shrink-0 text-[11px] text-muted">纯音乐</span>}
                </p>
                <p className="text-xs text-muted truncate">{song.tags || song.prompt}</p>
                {song.takedown ? (
                  <p data-testid="song-status" className="mt-1 text-xs text-danger break-words">
                    已下架：{song.takedown}
                  </p>
                ) : unfinished ? (
                  <div className="mt-1.5 flex items-center gap-2">
                    <div
                      role="progressbar"
                      aria-label={`《${song.title || '未命名'}》生成进度`}
                      aria-valuemin={0}
                      aria-valuemax={100}
                      aria-valuenow={progress}
                      aria-valuetext={`${STATUS_TEXT[song.status]} ${progress}%`}
                      className="flex-1 h-1.5 rounded-full bg-raised overflow-hidden"
                    >
                      <div className="h-full rounded-full bg-primary transition-[width] duration-700" style={{ width: `${progress}%` }} />
                    </div>
                    <span data-testid="song-status" className="shrink-0 text-[11px] text-primary">
                      {STATUS_TEXT[song.status]} {progress}%
                    </span>
                  </div>
                ) : song.status === 'error' ? (
                  <p data-testid="song-status" className="mt-1 text-xs text-danger truncate">
                    {STATUS_TEXT.error}：{song.errorMessage || '请稍后重试'}
                  </p>
                ) : (
                  <p data-testid="song-status" className="mt-1 text-xs text-muted tabular-nums">
                    <span className="sr-only">{STATUS_TEXT.complete}，时长 </span>
                    {formatDuration(song.duration)}
                  </p>
                )}
              </div>
              <div className="flex items-center">
                <IconButton label={`更多操作《${song.title || '未命名'}》`} glyph="more" filled onClick={() => setMenu(song)} />
                <IconButton label={`删除《${song.title || '未命名'}》`} glyph="trash" onClick={() => handleDelete(song)} />
              </div>
            </li>
          )
        })}
      </ul>
      {menu && <SongMenu song={menu} onClose={() => setMenu(null)} />}
      {songs.list.length < songs.total && (
        <div className="mt-4 text-center">
          <button
            type="button"
            aria-disabled={songs.loading || undefined}
            onClick={() => !songs.loading && loadSongs({ more: true }).catch(notifyError)}
            className="h-10 px-6 rounded-lg border border-line text-ink hover:border-primary hover:text-primary"
          >
            {songs.loading ? '加载中…' : '加载更多'}
          </button>
        </div>
      )}
    </div>
  )
}
