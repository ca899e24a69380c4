import { type Browser, expect, type Page, type TestInfo, test } from '@playwright/test'
import { loginAs, shot as attach } from './helpers'
import { type LingxiServer, startServer } from './server'

// The song actions with the offline demo composer: extend from a chosen second, edit the lyrics
// and sing them again, an instrumental version, downloads named by the server, the lyrics following
// playback, and a read-only share link that a stranger opens without logging in, until revoked.

let server: LingxiServer

/** Attaches a screenshot and keeps it as a file of the test's output, to look at. */
async function shot(page: Page, info: TestInfo, name: string) {
  await attach(page, info, name)
  await page.screenshot({ path: info.outputPath(`${name.replaceAll(' ', '-')}.png`) })
}
test.beforeAll(async () => {
  server = await startServer({ MUSIC_DEMO_DELAY_MS: '1500', MUSIC_POLL_MS: '400' })
})
test.afterAll(async () => {
  await server?.stop()
})

const songs = (page: Page) => page.getByTestId('song')
const done = (page: Page) => songs(page).and(page.locator('[data-status=complete]'))
const menu = (page: Page) => page.getByRole('dialog')

async function twoSongs(page: Page, phone: string, prompt: string) {
  await page.goto(`${server.url}/music`)
  await loginAs(page, server, phone)
  await page.getByRole('textbox', { name: '歌曲描述' }).fill(prompt)
  await page.getByRole('button', { name: '生成音乐' }).click()
  await expect(done(page)).toHaveCount(2, { timeout: 60_000 })
}

async function openMenu(page: Page, index = 0) {
  await songs(page)
    .nth(index)
    .getByRole('button', { name: /^更多操作《/ })
    .click()
  await expect(menu(page).getByTestId('song-menu')).toBeVisible()
}

/** A stranger (no login, another browser context) opens the share link. */
async function stranger(browser: Browser, link: string) {
  const context = await browser.newContext()
  const page = await context.newPage()
  await page.goto(link)
  return { page, close: () => context.close() }
}

test('extend from a chosen second, relyric, instrumental; downloads; lyrics follow playback; share and revoke', async ({ page, browser }, info) => {
  await page.setViewportSize({ width: 1280, height: 800 })
  await twoSongs(page, '13800138310', '一首关于海边日落的歌')
  const before = Number(await page.getByTestId('suno-count').textContent())

  // the lyrics follow playback: a later time highlights a later line, and the panel is not live
  await songs(page)
    .first()
    .getByRole('button', { name: /^播放《/ })
    .click()
  await expect(page.getByTestId('player')).toHaveAttribute('data-status', 'playing')
  // paused, so the end of the song does not move on to the next one
  await page.getByTestId('player').getByRole('button', { name: '暂停' }).click()
  await page.getByTestId('player').getByRole('button', { name: '歌词' }).click()
  const lyrics = page.getByRole('region', { name: '歌词' })
  await expect(lyrics).toHaveAttribute('aria-live', 'off')
  const seek = page.getByTestId('player').getByRole('slider', { name: '播放进度' })
  await seek.focus()
  await page.keyboard.press('Home')
  await page.keyboard.press('PageUp')
  await page.keyboard.press('PageUp')
  const early = await lyrics.locator('[aria-current=true]').textContent()
  await page.keyboard.press('End')
  await page.keyboard.press('PageDown')
  await expect(lyrics.locator('[aria-current=true]')).not.toHaveText(early ?? '')
  const lines = await lyrics.getByTestId('lyric-line').allTextContents()
  const current = (await lyrics.locator('[aria-current=true]').textContent()) ?? ''
  expect(lines.lastIndexOf(current)).toBeGreaterThan(lines.indexOf(early ?? ''))
  await expect(lyrics.locator('[aria-current=true]')).toBeInViewport()
  await shot(page, info, 'lyrics following playback')

  // downloads: the demo's WAV and the PNG cover, named after the Chinese title
  const title = ((await songs(page).first().locator('p').first().textContent()) ?? '').replace('示例', '').trim()
  await openMenu(page)
  await shot(page, info, 'song menu')
  const audio = page.waitForEvent('download')
  await menu(page).getByRole('button', { name: '下载音频（WAV）' }).click()
  expect((await audio).suggestedFilename()).toBe(`${title}.wav`)
  const cover = page.waitForEvent('download')
  await menu(page).getByRole('button', { name: '下载封面' }).click()
  expect((await cover).suggestedFilename()).toBe(`${title}-封面.png`)

  // share: a stranger opens the read-only page without logging in; nothing of the owner shows
  await menu(page).getByRole('button', { name: '生成分享链接' }).click()
  const link = await menu(page).getByTestId('share-link').inputValue()
  expect(link).toMatch(/\/music\?share=[A-Za-z0-9_-]{24}$/)
  const visitor = await stranger(browser, link)
  await expect(visitor.page.getByTestId('shared-song')).toContainText(title)
  await expect(visitor.page.getByTestId('shared-audio')).toBeVisible()
  await expect(visitor.page.getByTestId('shared-song')).not.toContainText('138')
  await shot(visitor.page, info, 'shared song for a stranger')
  await menu(page).getByRole('button', { name: '撤销分享' }).click()
  await expect(menu(page).getByRole('button', { name: '生成分享链接' })).toBeVisible()
  await visitor.page.reload()
  await expect(visitor.page.getByTestId('shared-song')).toContainText('分享不存在或已撤销')
  await visitor.close()

  // extend from 0:10: two new songs, 1 次
  const from = menu(page).getByRole('slider', { name: '续写起点（秒）' })
  await from.focus()
  await page.keyboard.press('Home')
  for (let i = 0; i < 9; i++) await page.keyboard.press('ArrowRight')
  await expect(menu(page).getByTestId('extend-at')).toContainText('0:10 /')
  await menu(page).getByRole('textbox', { name: '续写部分的歌词（可不填）' }).fill('[Verse]\n日落以后 海风还在唱')
  await menu(page).getByRole('button', { name: '从 0:10 续写' }).click()
  await expect(menu(page)).toBeHidden()
  await expect(songs(page)).toHaveCount(4)
  await expect(page.getByTestId('suno-count')).toHaveText(String(before - 1))

  // edit the lyrics and sing them again
  await openMenu(page, 2)
  await menu(page).getByRole('textbox', { name: '修改后的歌词' }).fill('[Verse]\n改过的第一句\n改过的第二句')
  await menu(page).getByRole('button', { name: '按新歌词生成' }).click()
  await expect(songs(page)).toHaveCount(6)
  await expect(songs(page).first()).toContainText(title)

  // an instrumental version
  await openMenu(page, 4)
  await menu(page).getByRole('button', { name: '生成纯音乐版' }).click()
  await expect(songs(page)).toHaveCount(8)
  await expect(songs(page).first()).toContainText('纯音乐')
  await expect(done(page)).toHaveCount(8, { timeout: 60_000 })
  await expect(page.getByTestId('suno-count')).toHaveText(String(before - 3))
  await shot(page, info, 'after extend, relyric and instrumental')
})

test.describe('phone (390×844, touch)', () => {
  test.use({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true })

  test('the song menu is a bottom sheet; extend and share work by touch', async ({ page, browser }, info) => {
    await twoSongs(page, '13800138311', '雨天的咖啡馆')
    await songs(page)
      .first()
      .getByRole('button', { name: /^更多操作《/ })
      .tap()
    await expect(menu(page).getByTestId('song-menu')).toBeVisible()
    const sheet = (await menu(page).boundingBox())!
    expect(sheet.y + sheet.height).toBeGreaterThan(800)
    expect(sheet.width).toBeGreaterThan(380)
    await shot(page, info, 'phone song menu')
    await menu(page).getByRole('button', { name: '生成分享链接' }).tap()
    const link = await menu(page).getByTestId('share-link').inputValue()
    const visitor = await stranger(browser, link)
    await visitor.page.setViewportSize({ width: 390, height: 844 })
    await expect(visitor.page.getByTestId('shared-audio')).toBeVisible()
    await shot(visitor.page, info, 'phone shared song')
    await visitor.close()
    await menu(page)
      .getByRole('button', { name: /^从 .* 续写$/ })
      .tap()
    await expect(songs(page)).toHaveCount(4)
    await expect(done(page)).toHaveCount(4, { timeout: 60_000 })
  })
})
