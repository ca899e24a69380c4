import { expect, test, type Page } from '@playwright/test'
import { loginAs, shot } from './helpers'
import { startServer, type LingxiServer } from './server'

// AI music on the host page with the offline demo composer: create two clips, follow them to
// complete, play, seek, next, lyrics, download; the song keeps playing on other routes (mini bar).

let server: LingxiServer
test.beforeAll(async () => {
  server = await startServer()
})
test.afterAll(async () => {
  await server?.stop()
})

const songs = (page: Page) => page.getByTestId('song')
const player = (page: Page) => page.getByTestId('player')

/** Seconds shown by a m:ss label. */
async function seconds(page: Page, testId: string): Promise<number> {
  const text = (await page.getByTestId(testId).first().textContent()) ?? ''
  const m = /(\d+):(\d\d)/.exec(text)
  return m ? Number(m[1]) * 60 + Number(m[2]) : NaN
}

test('create two songs, play, seek, next, lyrics, download; the song plays on across routes', async ({ page }, info) => {
  await page.goto(server.url + '/music')
  await loginAs(page, server, '13800138300')
  await expect(page.getByRole('heading', { name: 'AI 音乐' })).toBeVisible()
  const before = Number(await page.getByTestId('suno-count').textContent())

  // an empty description is refused on the spot
  await page.getByRole('button', { name: '生成音乐' }).click()
  await expect(page.getByRole('alert')).toHaveText('请描述你想要的歌曲')
  await expect(songs(page)).toHaveCount(0)

  // progress arrives over the account channel: song/get is asked at most once per clip (the
  // catch-up when the channel opens), not every 3 s
  let polls = 0
  page.on('request', (r) => {
    if (r.url().endsWith('/api/v1/music/song/get')) polls++
  })
  await page.getByRole('textbox', { name: '歌曲描述' }).fill('一首关于夏夜晚风的轻快流行歌')
  await page.getByRole('button', { name: '生成音乐' }).click()
  await expect(songs(page)).toHaveCount(2)
  await expect(page.getByRole('progressbar')).toHaveCount(2)
  await shot(page, info, 'two clips generating')
  await expect(songs(page).and(page.locator('[data-status=complete]'))).toHaveCount(2, { timeout: 60_000 })
  await expect(page.getByRole('progressbar')).toHaveCount(0)
  expect(polls).toBeLessThanOrEqual(2)
  await expect(page.getByTestId('suno-count')).toHaveText(String(before - 1))
  // the demo composer's songs say what they are
  await expect(songs(page).first()).toContainText('示例')

  // play the first
  await songs(page)
    .first()
    .getByRole('button', { name: /^播放《/ })
    .click()
  await expect(player(page)).toHaveAttribute('data-status', 'playing')
  await expect(songs(page).first()).toHaveAttribute('aria-current', 'true')
  await expect.poll(() => seconds(page, 'player-duration')).toBeGreaterThan(0)
  // time moves while it plays
  const t0 = await seconds(page, 'player-time')
  await expect.poll(() => seconds(page, 'player-time'), { timeout: 10_000 }).toBeGreaterThan(t0)

  // seek with the keyboard (the slider is a native range input)
  const seek = player(page).getByRole('slider', { name: '播放进度' })
  await seek.focus()
  await page.keyboard.press('PageUp')
  await page.keyboard.press('PageUp')
  await expect.poll(() => seconds(page, 'player-time')).toBeGreaterThanOrEqual(2)
  await shot(page, info, 'playing')

  // pause and resume
  await player(page).getByRole('button', { name: '暂停' }).click()
  await expect(player(page)).toHaveAttribute('data-status', 'paused')
  await player(page).getByRole('button', { name: '播放', exact: true }).click()
  await expect(player(page)).toHaveAttribute('data-status', 'playing')

  // lyrics
  await player(page).getByRole('button', { name: '歌词' }).click()
  await expect(page.getByRole('region', { name: '歌词' })).toBeVisible()
  await expect(page.getByRole('region', { name: '歌词' })).not.toBeEmpty()
  await shot(page, info, 'lyrics')

  // next: the second clip
  await player(page).getByRole('button', { name: '下一首' }).click()
  await expect(songs(page).nth(1)).toHaveAttribute('aria-current', 'true')
  await expect(player(page)).toHaveAttribute('data-status', 'playing')

  // download: the server names the file (Content-Disposition, RFC 5987)
  const download = page.waitForEvent('download')
  await player(page).getByRole('button', { name: '下载' }).click()
  expect((await download).suggestedFilename()).toMatch(/\.(wav|mp3)$/)

  // another route: the song plays on, the header carries the mini player
  await page.getByRole('navigation', { name: '工具菜单' }).getByRole('link', { name: '热点资讯' }).click()
  await expect(page).toHaveURL(/\/hotNew$/)
  const mini = page.getByTestId('mini-player')
  await expect(mini).toBeVisible()
  await expect(mini).toHaveAttribute('data-status', 'playing')
  await shot(page, info, 'mini player on another route')
  await mini.getByRole('button', { name: '暂停' }).click()
  await expect(mini).toHaveAttribute('data-status', 'paused')
  await mini.getByRole('button', { name: '播放', exact: true }).click()
  await expect(mini).toHaveAttribute('data-status', 'playing')
  // back to the music page through the bar: the same song, still playing
  await mini.getByTitle('打开 AI 音乐').click()
  await expect(page).toHaveURL(/\/music$/)
  await expect(mini).toBeHidden()
  await expect(player(page)).toHaveAttribute('data-status', 'playing')
  await expect(songs(page).nth(1)).toHaveAttribute('aria-current', 'true')
})

test('custom mode with AI 写词, and the phone layout with the mini player above the bottom bar', async ({ page }, info) => {
  await page.setViewportSize({ width: 390, height: 844 })
  await page.goto(server.url + '/music')
  await loginAs(page, server, '13800138301')
  await page.getByRole('button', { name: '自定义模式' }).click()
  await page.getByRole('textbox', { name: '音乐风格' }).fill('民谣, 吉他')
  await page.getByRole('button', { name: 'AI 写词' }).click()
  await expect(page.getByRole('textbox', { name: '歌词' })).not.toHaveValue('', { timeout: 20_000 })
  await expect(page.getByRole('textbox', { name: '歌名' })).not.toHaveValue('')
  await shot(page, info, 'phone custom mode')
  await page.getByRole('button', { name: '生成音乐' }).click()
  await expect(songs(page)).toHaveCount(2)
  await expect(songs(page).and(page.locator('[data-status=complete]'))).toHaveCount(2, { timeout: 60_000 })
  await songs(page)
    .first()
    .getByRole('button', { name: /^播放《/ })
    .click()
  await expect(player(page)).toHaveAttribute('data-status', 'playing')
  await shot(page, info, 'phone playing')

  await page.getByTestId('bottom-bar').getByRole('link', { name: '我的' }).click()
  await expect(page).toHaveURL(/\/usercenter/)
  const mini = page.getByTestId('mini-player')
  await expect(mini).toHaveAttribute('data-status', 'playing')
  // it sits above the bottom bar, not over it
  const bar = (await mini.boundingBox())!
  const bottom = (await page.getByTestId('bottom-bar').boundingBox())!
  expect(bar.y + bar.height).toBeLessThanOrEqual(bottom.y)
  await shot(page, info, 'phone mini player')
  await mini.getByRole('button', { name: '关闭播放器' }).click()
  await expect(mini).toBeHidden()
})

test.describe('phone (390×844, touch)', () => {
  test.use({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true })

  test('生成音乐 keeps the description and brings the new songs into view', async ({ page }, info) => {
    await page.goto(server.url + '/music')
    await loginAs(page, server, '13800138302')
    const prompt = page.getByRole('textbox', { name: '歌曲描述' })
    await prompt.fill('一首关于秋天落叶的民谣')
    await page.getByRole('button', { name: '生成音乐' }).tap()
    await expect(songs(page)).toHaveCount(2)
    await expect
      .poll(async () => {
        const box = await songs(page).first().boundingBox()
        return box !== null && box.y >= 64 && box.y <= 844 - 51 - 40
      })
      .toBe(true)
    await expect(prompt).toHaveValue('一首关于秋天落叶的民谣')
    await shot(page, info, 'phone music after submit')
  })

  test('on /chat the mini player covers no input: its space is reserved', async ({ page }, info) => {
    await page.goto(server.url + '/music')
    await loginAs(page, server, '13800138303')
    await page.getByRole('textbox', { name: '歌曲描述' }).fill('夜晚城市的轻音乐')
    await page.getByRole('button', { name: '生成音乐' }).tap()
    await expect(songs(page).and(page.locator('[data-status=complete]'))).toHaveCount(2, { timeout: 60_000 })
    await songs(page)
      .first()
      .getByRole('button', { name: /^播放《/ })
      .tap()
    await expect(player(page)).toHaveAttribute('data-status', 'playing')
    await page.getByTestId('bottom-bar').getByRole('link', { name: 'AI对话' }).tap()
    await expect(page).toHaveURL(/\/chat/)
    const mini = page.getByTestId('mini-player')
    await expect(mini).toHaveAttribute('data-status', 'playing')
    const input = page.getByRole('textbox', { name: '输入消息' })
    await expect(input).toBeVisible()
    await page.waitForTimeout(300)
    const bar = (await mini.boundingBox())!
    const main = (await page.getByRole('main').boundingBox())!
    const box = (await input.boundingBox())!
    const bottom = (await page.getByTestId('bottom-bar').boundingBox())!
    // the page area ends above the bar: nothing in it is under the bar
    expect(main.y + main.height).toBeLessThanOrEqual(bar.y)
    expect(box.y + box.height).toBeLessThanOrEqual(bar.y)
    expect(bar.y + bar.height).toBeLessThanOrEqual(bottom.y)
    // and the input takes a tap
    await input.tap()
    await expect(input).toBeFocused()
    await page.screenshot({ path: info.outputPath('phone-chat-mini-player.png') })
    await shot(page, info, 'phone chat with the mini player')
  })
})
