// @vitest-environment happy-dom
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { configure } from '../../core/config'
import { $token, $user } from '../../core/stores'
import { stopPlayer } from './actions'
import { $player } from './player-state'
import type { Song } from './state'

// <lingxi-music> against a loopback fake of the music endpoints (docs/tools-wire.md). Runs under
// real React and under preact/compat.

const song = (songId: string, patch: Partial<Song> = {}): Song => ({
  songId,
  taskId: 't1',
  title: `歌${songId}`,
  tags: 'pop, piano',
  lyric: '[Verse]\n夏天的风',
  prompt: '夏天',
  instrumental: false,
  status: 'complete',
  audioUrl: `/files/music/${songId}.wav`,
  imageUrl: null,
  duration: 65,
  errorMessage: null,
  demo: true,
  sharePath: null,
  createTime: 1,
  ...patch
})

let songs: Song[] = []
let sunoCount = 8
const calls: { path: string; body: Record<string, unknown> }[] = []
let server: ReturnType<typeof createServer>

async function serve(req: IncomingMessage, res: ServerResponse) {
  res.setHeader('Access-Control-Allow-Origin', req.headers.origin ?? '*')
  res.setHeader('Access-Control-Allow-Headers', 'authorization, content-type, accept')
  if (req.method === 'OPTIONS') return res.end()
  const path = new URL(req.url ?? '/', 'http://x').pathname.replace('/api/v1/', '')
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  const body = JSON.parse(Buffer.concat(chunks).toString() || '{}') as Record<string, unknown>
  calls.push({ path, body })
  const made = [
    song('n1', { title: '新歌', status: 'queued', audioUrl: null, demo: false }),
    song('n2', { title: '新歌', status: 'streaming', audioUrl: 'http://up/n2', demo: false })
  ]
  if (path.endsWith('generate') && !path.includes('lyrics')) sunoCount--
  const data: Record<string, unknown> = {
    'music/song/list': { list: songs, total: songs.length, pageNum: 1, pageSize: 10 },
    'music/song/get': songs.find((s) => s.songId === body.songId) ?? made.find((s) => s.songId === body.songId),
    'music/generate': { taskId: 't2', songs: made },
    'music/custom/generate': { taskId: 't3', songs: made },
    'music/lyrics/generate': { title: '晚风', text: '[Verse]\nAI 写的词' },
    'music/extend': { taskId: 't4', songs: made },
    'music/song/share': { ...songs[0], sharePath: '/music?share=abcdefghijklmnopqrstuvwx' },
    'user/info': {
      accountId: 'a',
      userId: 'a',
      phone: '13800138000',
      nickName: '',
      avatarUrl: '',
      state: 1,
      tokens: 1,
      mjCount: 1,
      sunoCount,
      permissionCodes: []
    }
  }
  res.setHeader('content-type', 'application/json')
  res.end(JSON.stringify(path in data ? { code: 2000, message: 'success', data: data[path] } : { code: 40400001, message: path, data: null }))
}

beforeAll(async () => {
  server = createServer((req, res) => void serve(req, res))
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  configure({ apiBase: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })
  await import('./music.element')
})
afterAll(() => new Promise<void>((r) => server.close(() => r())))
beforeEach(() => {
  songs = [song('s1'), song('s2', { title: '第二首', demo: false }), song('s3', { status: 'error', audioUrl: null, errorMessage: '上游失败' })]
  calls.length = 0
  sunoCount = 8
  $token.set('tok')
  $user.set({
    accessToken: 'tok',
    accountId: 'a',
    userId: 'a',
    phone: '13800138000',
    nickName: '',
    avatarUrl: '',
    state: 1,
    tokens: 1,
    mjCount: 1,
    sunoCount: 8,
    permissionCodes: []
  } as never)
})
afterEach(() => {
  document.body.innerHTML = ''
  stopPlayer()
  $token.set(null)
  $user.set(null)
})

const button = (root: ParentNode, name: string) =>
  [...root.querySelectorAll<HTMLElement>('button, a')].find((b) => b.textContent?.trim() === name || b.getAttribute('aria-label') === name)

async function mount(attrs: Record<string, string> = {}) {
  const el = document.createElement('lingxi-music')
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v)
  document.body.append(el)
  const root = el.shadowRoot!
  if (!('mini' in attrs)) await vi.waitFor(() => expect(root.querySelectorAll('[data-testid=song]')).toHaveLength(3))
  return root
}

function type(field: HTMLInputElement | HTMLTextAreaElement, value: string) {
  field.value = value
  field.dispatchEvent(new Event('input', { bubbles: true }))
}

describe('<lingxi-music>', () => {
  it('lists my songs with 示例 on demo songs, the failure reason and the duration', async () => {
    const root = await mount()
    const items = [...root.querySelectorAll('[data-testid=song]')]
    expect(items[0]!.textContent).toContain('示例')
    expect(items[1]!.textContent).not.toContain('示例')
    expect(items[0]!.querySelector('[data-testid=song-status]')!.textContent).toContain('1:05')
    expect(items[2]!.textContent).toContain('生成失败：上游失败')
    expect(button(items[2]!, '播放《歌s3》')!.getAttribute('aria-disabled')).toBe('true')
    expect(root.querySelector('[data-testid=suno-count]')!.textContent).toBe('8')
  })

  it('refuses an empty description without calling the server', async () => {
    const root = await mount()
    root.querySelector('form')!.dispatchEvent(new Event('submit', { bubbles: true, cancelable: true }))
    await vi.waitFor(() => expect(root.querySelector('[role=alert]')?.textContent).toBe('请描述你想要的歌曲'))
    expect(root.querySelector('#lx-music-prompt')!.getAttribute('aria-invalid')).toBe('true')
    expect(calls.some((c) => c.path === 'music/generate')).toBe(false)
  })

  it('creates two clips from a description; they show with status and progress', async () => {
    const root = await mount()
    type(root.querySelector<HTMLTextAreaElement>('#lx-music-prompt')!, '夏夜晚风')
    button(root, '纯音乐')!.click()
    await vi.waitFor(() => expect(button(root, '纯音乐')!.getAttribute('aria-checked')).toBe('true'))
    root.querySelector('form')!.dispatchEvent(new Event('submit', { bubbles: true, cancelable: true }))
    await vi.waitFor(() => expect(root.querySelectorAll('[data-testid=song]')).toHaveLength(5))
    expect(calls.find((c) => c.path === 'music/generate')!.body).toEqual({ prompt: '夏夜晚风', instrumental: true })
    const bars = [...root.querySelectorAll('[role=progressbar]')]
    expect(bars).toHaveLength(2)
    // newest first, as song/list has them: the second clip, then the first
    expect(bars[0]!.getAttribute('aria-valuetext')).toMatch(/^生成中，可试听 \d+%$/)
    expect(bars[1]!.getAttribute('aria-valuetext')).toMatch(/^排队中 \d+%$/)
    // the streaming clip already plays; the queued one does not
    const [streaming, queued] = [...root.querySelectorAll('[data-testid=song]')]
    expect(button(streaming!, '播放《新歌》')!.getAttribute('aria-disabled')).toBeNull()
    expect(button(queued!, '播放《新歌》')!.getAttribute('aria-disabled')).toBe('true')
    await vi.waitFor(() => expect(root.querySelector('[data-testid=suno-count]')!.textContent).toBe('7'))
  })

  it('custom mode: AI 写词 fills the lyrics and the title, then sends lyrics, style and title', async () => {
    const root = await mount()
    button(root, '自定义模式')!.click()
    await vi.waitFor(() => expect(root.querySelector('#lx-music-lyric')).not.toBeNull())
    button(root, 'AI 写词')!.click()
    await vi.waitFor(() => expect(root.querySelector('[role=alert]')?.textContent).toMatch(/AI 才知道写什么/))
    button(root, '民谣')!.click()
    await vi.waitFor(() => expect(root.querySelector<HTMLInputElement>('#lx-music-tags')!.value).toBe('民谣'))
    button(root, 'AI 写词')!.click()
    await vi.waitFor(() => expect(root.querySelector<HTMLTextAreaElement>('#lx-music-lyric')!.value).toBe('[Verse]\nAI 写的词'))
    expect(root.querySelector<HTMLInputElement>('#lx-music-title')!.value).toBe('晚风')
    expect(calls.find((c) => c.path === 'music/lyrics/generate')!.body).toEqual({ prompt: '民谣' })
    root.querySelector('form')!.dispatchEvent(new Event('submit', { bubbles: true, cancelable: true }))
    await vi.waitFor(() =>
      expect(calls.find((c) => c.path === 'music/custom/generate')?.body).toEqual({
        lyric: '[Verse]\nAI 写的词',
        tags: '民谣',
        title: '晚风',
        instrumental: false
      })
    )
  })

  it('plays a song, shows its lyrics, steps to the next and offers the download', async () => {
    const root = await mount()
    button(root, '播放《歌s1》')!.click()
    await vi.waitFor(() => expect(root.querySelector('[data-testid=player-title]')!.textContent).toContain('歌s1'))
    await vi.waitFor(() => expect(root.querySelector('[data-testid=player]')!.getAttribute('data-status')).toBe('playing'))
    expect(root.querySelector('[data-testid=song][aria-current=true]')!.textContent).toContain('歌s1')
    expect(button(root, '暂停')).toBeDefined()
    // the download asks the server (Content-Disposition names the file), so it is a button
    expect(button(root.querySelector('[data-testid=player]')!, '下载')!.getAttribute('aria-disabled')).toBeNull()
    button(root, '歌词')!.click()
    await vi.waitFor(() => expect(root.querySelector('[data-testid=lyrics]')!.textContent).toContain('夏天的风'))
    expect(button(root, '歌词')!.getAttribute('aria-expanded')).toBe('true')
    button(root, '下一首')!.click()
    await vi.waitFor(() => expect(root.querySelector('[data-testid=player-title]')!.textContent).toContain('第二首'))
    // the failed song is skipped: nothing after the second one
    expect(button(root, '下一首')!.getAttribute('aria-disabled')).toBe('true')
    const seek = root.querySelector<HTMLInputElement>('input[type=range]')!
    expect(seek.getAttribute('aria-label')).toBe('播放进度')
    type(seek, '30')
    await vi.waitFor(() => expect($player.get().currentTime).toBe(30))
  })

  it('song menu: extends from the chosen second, shares a read-only link', async () => {
    const root = await mount()
    button(root, '更多操作《歌s1》')!.click()
    const menu = await vi.waitFor(() => {
      const found = root.querySelector<HTMLElement>('[data-testid=song-menu]')
      if (!found) throw new Error('no menu yet')
      return found
    })
    const from = menu.querySelector<HTMLInputElement>('input[aria-label="续写起点（秒）"]')!
    type(from, '20')
    await vi.waitFor(() => expect(menu.querySelector('[data-testid=extend-at]')!.textContent).toBe('0:20 / 1:05'))
    button(menu, '生成分享链接')!.click()
    await vi.waitFor(() => expect(menu.querySelector<HTMLInputElement>('[data-testid=share-link]')!.value).toMatch(/\/music\?share=abcdefghijklmnopqrstuvwx$/))
    expect(calls.find((c) => c.path === 'music/song/share')!.body).toEqual({ songId: 's1' })
    button(menu, '从 0:20 续写')!.click()
    await vi.waitFor(() => expect(calls.find((c) => c.path === 'music/extend')?.body).toEqual({ songId: 's1', continueAt: 20, lyric: '' }))
    await vi.waitFor(() => expect(root.querySelector('[data-testid=song-menu]')).toBeNull())
    expect(root.querySelector('[data-song-id=n1]')).not.toBeNull()
  })

  it('mini: nothing while no song is current, the compact bar when one is, and it survives the page element', async () => {
    const root = await mount()
    const mini = await mount({ mini: '' })
    expect(mini.querySelector('[data-testid=mini-player]')).toBeNull()
    button(root, '播放《第二首》')!.click()
    await vi.waitFor(() => expect(mini.querySelector('[data-testid=mini-title]')?.textContent).toBe('第二首'))
    // the page element goes away (another route): the song is still current and playing
    document.querySelector('lingxi-music:not([mini])')!.remove()
    await new Promise((r) => setTimeout(r, 20))
    expect($player.get()).toMatchObject({ status: 'playing', song: { songId: 's2' } })
    const asked: unknown[] = []
    const listen = (e: Event) => asked.push((e as CustomEvent).detail)
    addEventListener('lingxi-navigate', listen)
    mini.querySelector<HTMLButtonElement>('[title="打开 AI 音乐"]')!.click()
    removeEventListener('lingxi-navigate', listen)
    expect(asked).toContainEqual({ path: '/music' })
    button(mini, '关闭播放器')!.click()
    await vi.waitFor(() => expect(mini.querySelector('[data-testid=mini-player]')).toBeNull())
    expect($player.get().status).toBe('idle')
  })

  it('logged out: a login prompt instead of the studio', async () => {
    $token.set(null)
    const el = document.createElement('lingxi-music')
    document.body.append(el)
    await vi.waitFor(() => expect(el.shadowRoot!.textContent).toContain('登录后创作音乐'))
    expect(calls.some((c) => c.path === 'music/song/list')).toBe(false)
  })
})
