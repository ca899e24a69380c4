import { useStore } from '@nanostores/react'
import { useEffect, useState } from 'react'
import { notifyError } from '../../core/api'
import { $token } from '../../core/stores'
import type { ElementProps } from '../../ui/define'
import { Canvas } from '../../ui/canvas'
import { InlineLogin, LoggedOut } from '../../ui/logged-out'
import { loadSongs, startMusic } from './actions'
import { CreateForm } from './create-form'
import { Glyph } from './glyphs'
import { MiniPlayer, Player } from './player'
import { SharedSongPage } from './shared-song'
import { SongList } from './song-list'
import { $songs } from './state'

export interface MusicProps extends ElementProps {
  /** Only the compact player bar (nothing while no song is current). */
  mini?: boolean
  /** The token of a shared song: its read-only page, for anyone (no login). */
  share?: string
}

/**
 * @summary AI music: create two songs from a description, or from lyrics, style tags and a title
 * (AI 写词 writes the lyrics), follow their progress, and play them — play/pause, seek,
 * previous/next, lyrics, download. The audio belongs to the page, not to the element: it keeps
 * playing when the element goes away, and `<lingxi-music mini>` is the compact bar that controls it
 * from anywhere. Songs of the offline demo composer are marked 示例.
 * @attr mini - Show only the compact player bar (hidden while nothing is current).
 * @attr share - A share token: the read-only page of that shared song, for anyone (no login).
 * @event lingxi-navigate - (window) The mini bar's title asks for the music page: detail `{path: '/music'}`.
 * @event lingxi-confirm - (window) Asks before deleting a song.
 * @csspart base - The element's root, painted with --lingxi-bg over its whole height (padding, corners…).
 * @csspart player - The now-playing card.
 * @csspart mini-player - The compact player bar.
 * @csspart song - One song of the list.
 * @csspart song-menu - A song's actions: extend, new lyrics, instrumental, share, downloads.
 * @cssproperty --lingxi-primary - Accent colour (default #fbab00).
 */
export function Music({ mini, share }: MusicProps) {
  useState(startMusic)
  const token = useStore($token)
  if (mini) return <MiniPlayer />
  if (share)
    return (
      <Canvas>
        <div className="@container">
          <SharedSongPage token={share} />
        </div>
      </Canvas>
    )
  return (
    <Canvas>
      {token ? (
        <Studio />
      ) : (
        <LoggedOut icon={<Glyph name="note" className="size-7" />} title="登录后创作音乐" blurb="一句描述或一段歌词，生成两首完整的歌曲。" />
      )}
      <InlineLogin />
    </Canvas>
  )
}

function Studio() {
  const songs = useStore($songs)
  useEffect(() => {
    loadSongs().catch(notifyError)
  }, [])
  return (
    <section aria-labelledby="lx-music-heading" className="@container max-w-6xl mx-auto">
      <h2 id="lx-music-heading" className="text-xl font-bold">
        AI 音乐
      </h2>
      <div className="mt-4 grid gap-5 cq-md:grid-cols-[minmax(280px,360px)_1fr] items-start">
        <CreateForm />
        <div className="flex flex-col gap-4 min-w-0">
          <Player />
          <div>
            <h3 className="mb-2 text-sm font-semibold text-muted">我的歌曲{songs.loaded && <span className="ml-1 font-normal">（{songs.total}）</span>}</h3>
            <SongList />
          </div>
        </div>
      </div>
    </section>
  )
}
