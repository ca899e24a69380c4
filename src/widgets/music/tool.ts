import type { Tool } from '../manifest'
import { $playerShown } from './player-state'

/** AI音乐: songs from a description or lyrics, and the page's one player. */
export const music: Tool = {
  tag: 'lingxi-music',
  routes: [{ path: '/music', title: 'AI音乐', code: 'AI_TOOLS_MUSIC', icon: 'music', blurb: '一句描述或一段歌词，生成两首完整的歌曲。' }],
  screen: () => import('./screen'),
  // A song keeps playing on the other routes, with the mini player to control it.
  bar: { $visible: $playerShown, screen: () => import('./screen').then((m) => ({ default: m.MusicBar })) },
  allowances: ['suno']
}
