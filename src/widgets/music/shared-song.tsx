import { useEffect, useState } from 'react'
import { ApiError } from '../../core/api'
import { formatDuration, isWebUrl } from './actions'
import { Cover, DemoBadge, Glyph } from './glyphs'
import { LyricsView } from './lyrics-view'
import { readSharedSong, type SharedSong } from './song-actions'

/**
 * A shared song, read-only, for anyone with the link (no login): its cover, title, style, a player
 * of its own and the lyrics following it. Nothing of its owner is known here.
 */
export function SharedSongPage({ token }: { token: string }) {
  const [song, setSong] = useState<SharedSong | null>(null)
  const [error, setError] = useState<string | null>(null)
  const [time, setTime] = useState(0)
  const [duration, setDuration] = useState<number | null>(null)
  useEffect(() => {
    let alive = true
    readSharedSong(token).then(
      (s) => alive && setSong(s),
      (e: unknown) => alive && setError(e instanceof ApiError ? e.message : '加载失败，请稍后重试')
    )
    return () => {
      alive = false
    }
  }, [token])
  if (error)
    return (
      <section data-testid="shared-song" className="max-w-xl mx-auto py-16 text-center">
        <Glyph name="note" className="size-10 mx-auto text-muted" />
        <p role="alert" className="mt-3 text-muted">
          {error}
        </p>
      </section>
    )
  if (!song)
    return (
      <div role="status" className="py-16 grid place-items-center gap-2 text-muted text-sm">
        <span className="lx-spinner" />
        加载分享的歌曲…
      </div>
    )
  return (
    <section data-testid="shared-song" aria-labelledby="lx-shared-title" className="max-w-xl mx-auto rounded-card border border-line bg-surface p-4 cq-md:p-6">
      <div className="flex items-center gap-4">
        <Cover url={song.imageUrl} className="size-24 shrink-0 rounded-xl" />
        <div className="min-w-0">
          <p className="text-xs text-muted">分享的歌曲</p>
          <h2 id="lx-shared-title" className="mt-0.5 text-lg font-semibold flex items-center gap-2">
            <span className="truncate">{song.title || '未命名'}</span>
            {song.demo && <DemoBadge />}
          </h2>
          {song.tags && <p className="text-xs text-muted truncate">{song.tags}</p>}
          <p className="text-xs text-muted tabular-nums">{formatDuration(duration ?? song.duration)}</p>
        </div>
      </div>
      {isWebUrl(song.audioUrl) && (
        // biome-ignore lint/a11y/useMediaCaption: songs have no captions; the lyrics follow below
        <audio
          controls
          preload="metadata"
          src={song.audioUrl}
          aria-label={`播放《${song.title || '未命名'}》`}
          data-testid="shared-audio"
          onTimeUpdate={(e) => setTime((e.target as HTMLAudioElement).currentTime)}
          onLoadedMetadata={(e) => {
            const d = (e.target as HTMLAudioElement).duration
            if (Number.isFinite(d) && d > 0) setDuration(d)
          }}
          className="mt-4 w-full"
        />
      )}
      <LyricsView lyric={song.lyric} instrumental={song.instrumental} duration={duration ?? song.duration} time={time} />
    </section>
  )
}
