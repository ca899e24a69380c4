import { useStore } from '@nanostores/react'
import { useState } from 'react'
import { notifyError } from '../../core/api'
import { EVENT_NAVIGATE } from '../../core/wire'
import { formatDuration, hasNext, hasPrevious, isPlayable, isWebUrl, playNext, playPrevious, seekTo, stopPlayer, togglePlay } from './actions'
import { Cover, DemoBadge, Glyph, IconButton } from './glyphs'
import { LyricsView } from './lyrics-view'
import { $player, type PlayerState } from './player-state'
import { downloadSong } from './song-actions'
import { $songs } from './state'

const busy = (p: PlayerState) => p.status === 'playing' || p.status === 'loading'

function Seek({ player, compact }: { player: PlayerState; compact?: boolean }) {
  const duration = player.duration ?? 0
  const time = Math.min(player.currentTime, duration || player.currentTime)
  const label = `${formatDuration(time)} / ${formatDuration(player.duration)}`
  return (
    <div className={`flex items-center gap-2 ${compact ? 'text-[11px]' : 'text-xs'} text-muted tabular-nums`}>
      <span data-testid="player-time" className="w-10 text-right">
        {formatDuration(time)}
      </span>
      <input
        type="range"
        min={0}
        max={duration > 0 ? duration : 1}
        step={0.1}
        value={duration > 0 ? time : 0}
        disabled={!player.song || !(duration > 0)}
        aria-label="播放进度"
        aria-valuetext={label}
        onInput={(e) => seekTo(Number((e.target as HTMLInputElement).value))}
        className="flex-1 min-w-0 h-1.5 accent-[var(--color-primary)] disabled:opacity-40"
      />
      <span data-testid="player-duration" className="w-10">
        {formatDuration(player.duration)}
      </span>
    </div>
  )
}

function Controls({ player, size = 'large' }: { player: PlayerState; size?: 'large' | 'small' }) {
  useStore($songs) // neighbours change with the list
  const canPlay = player.song ? isPlayable(player.song) : $songs.get().list.some(isPlayable)
  const playing = busy(player)
  return (
    <fieldset className="min-w-0 flex items-center gap-1" aria-label="播放控制">
      <IconButton
        label="上一首"
        glyph="previous"
        filled
        onClick={() => playPrevious()}
        disabled={!player.song || (!hasPrevious() && player.currentTime < 0.5)}
      />
      <button
        type="button"
        aria-label={playing ? '暂停' : '播放'}
        title={playing ? '暂停' : '播放'}
        aria-disabled={!canPlay || undefined}
        data-testid="player-toggle"
        onClick={() => canPlay && togglePlay()}
        className={`${size === 'large' ? 'size-12' : 'size-10'} shrink-0 grid place-items-center rounded-full bg-primary text-primary-ink hover:brightness-110 aria-disabled:opacity-40`}
      >
        {player.status === 'loading' ? (
          <span className="lx-spinner !size-5 !border-2 !border-primary-ink/30 !border-t-primary-ink" aria-hidden="true" />
        ) : (
          <Glyph name={playing ? 'pause' : 'play'} filled className="size-5" />
        )}
      </button>
      <IconButton label="下一首" glyph="next" filled onClick={() => playNext()} disabled={!hasNext()} />
    </fieldset>
  )
}

/** The now-playing card of the music page: cover, title, controls, seek, lyrics and download. */
export function Player() {
  const player = useStore($player)
  const [lyrics, setLyrics] = useState(false)
  const song = player.song
  return (
    <section part="player" aria-label="音乐播放器" data-testid="player" data-status={player.status} className="rounded-card border border-line bg-surface p-4">
      <div className="flex items-center gap-4">
        <Cover url={song?.imageUrl ?? null} className="size-20 cq-md:size-24 shrink-0 rounded-xl" />
        <div className="min-w-0 flex-1">
          <p className="text-xs text-muted">
            {player.status === 'playing'
              ? '正在播放'
              : player.status === 'loading'
                ? '缓冲中'
                : player.status === 'error'
                  ? '播放失败'
                  : song
                    ? '已暂停'
                    : '未在播放'}
          </p>
          <h3 data-testid="player-title" className="mt-0.5 font-semibold text-base truncate flex items-center gap-2">
            <span className="truncate">{song ? song.title || '未命名' : '选择一首歌开始播放'}</span>
            {song?.demo && <DemoBadge />}
          </h3>
          {song?.tags && <p className="text-xs text-muted truncate">{song.tags}</p>}
          <div className="mt-2 flex items-center gap-1">
            <Controls player={player} />
            <span className="flex-1" />
            <IconButton label="歌词" glyph="lyrics" onClick={() => setLyrics((v) => !v)} disabled={!song} expanded={Boolean(song) && lyrics} />
            <IconButton
              label="下载"
              glyph="download"
              onClick={() => song && downloadSong(song, 'audio').catch(notifyError)}
              disabled={song?.status !== 'complete' || !isWebUrl(song.audioUrl)}
            />
          </div>
        </div>
      </div>
      <div className="mt-3">
        <Seek player={player} />
      </div>
      {song && lyrics && (
        <LyricsView lyric={song.lyric ?? ''} instrumental={song.instrumental} duration={player.duration ?? song.duration} time={player.currentTime} />
      )}
    </section>
  )
}

/**
 * The compact bar the host page shows on other routes while a song is current: it keeps the
 * person in control of what plays. Nothing when no song is current.
 */
export function MiniPlayer() {
  const player = useStore($player)
  const song = player.song
  if (!song) return null
  const progress = player.duration ? Math.min(100, (player.currentTime / player.duration) * 100) : 0
  return (
    <section
      part="mini-player"
      aria-label="音乐播放器"
      data-testid="mini-player"
      data-status={player.status}
      className="relative overflow-hidden flex items-center gap-3 h-14 pl-2 pr-1 rounded-xl border border-line bg-surface/95 backdrop-blur shadow-2xl"
    >
      <Cover url={song.imageUrl} className="size-10 shrink-0 rounded-lg" />
      <button
        type="button"
        onClick={() => dispatchEvent(new CustomEvent(EVENT_NAVIGATE, { detail: { path: '/music' } }))}
        className="min-w-0 flex-1 text-left"
        title="打开 AI 音乐"
      >
        <span data-testid="mini-title" className="flex items-center gap-1.5 text-sm font-medium">
          <span className="truncate">{song.title || '未命名'}</span>
          {song.demo && <DemoBadge />}
        </span>
        <span className="block text-[11px] text-muted tabular-nums">
          {formatDuration(player.currentTime)} / {formatDuration(player.duration)}
        </span>
      </button>
      <Controls player={player} size="small" />
      <IconButton label="关闭播放器" glyph="close" onClick={stopPlayer} className="size-8" />
      <span aria-hidden="true" className="absolute left-0 bottom-0 h-0.5 bg-primary" style={{ width: `${progress}%` }} />
    </section>
  )
}
