// @vitest-environment happy-dom
import { byText, calls, fake, input, installFakePainting, mount, submit, waitFor } from './fake-painting.test-helper'
import { $paintingDraft } from './state'

// <lingxi-painting>'s other views (the prompt helper, stable diffusion, the gallery) against the
// loopback fake of the painting endpoints. Runs under real React and under preact/compat.

installFakePainting()

describe('<lingxi-painting> helper, sd, gallery', () => {
  it('helper: words build the prompt, options of one kind exclude each other, 发送 hands it to /mj', async () => {
    const root = await mount({ view: 'helper' })
    await waitFor(() => expect(root.querySelectorAll('[data-testid=helper-category]')).toHaveLength(2))
    input(root.querySelector<HTMLInputElement>('[data-testid=helper-subject]')!, '柴犬')
    byText(root, '赛博朋克')!.click()
    byText(root, '横图 16:9')!.click()
    byText(root, '竖图 9:16')!.click()
    const out = root.querySelector<HTMLTextAreaElement>('[data-testid=helper-prompt]')!
    await waitFor(() => expect(out.value).toBe('柴犬, cyberpunk --ar 9:16'))
    expect(byText(root, '横图 16:9')!.getAttribute('aria-pressed')).toBe('false')
    const asked: unknown[] = []
    const listen = (e: Event) => asked.push((e as CustomEvent).detail)
    addEventListener('lingxi-navigate', listen)
    byText(root, '发送到 AI 绘画')!.click()
    removeEventListener('lingxi-navigate', listen)
    expect(asked).toEqual([{ path: `/mj?prompt=${encodeURIComponent('柴犬, cyberpunk --ar 9:16')}` }])
    expect($paintingDraft.get()).toBe('柴犬, cyberpunk --ar 9:16')
  })

  it('sd: options from sd/options, txt2img with the chosen settings', async () => {
    const root = await mount({ view: 'sd' })
    await waitFor(() => expect(root.querySelectorAll('input[name=sd-size]')).toHaveLength(2))
    input(root.querySelector<HTMLTextAreaElement>('[data-testid=sd-prompt]')!, 'a girl in a garden')
    root.querySelectorAll<HTMLInputElement>('input[name=sd-size]')[1]!.click()
    const seed = root.querySelector<HTMLInputElement>('input[placeholder=随机]')!
    input(seed, '123')
    await new Promise((r) => setTimeout(r, 20))
    submit(root.querySelector('form')!)
    await waitFor(() =>
      expect(calls.find((c) => c.path === 'sd/txt2img')?.body).toEqual({
        prompt: 'a girl in a garden',
        width: 512,
        height: 768,
        steps: 20,
        cfgScale: 7,
        sampler: 'Euler a',
        seed: 123
      })
    )
    await waitFor(() => expect(root.querySelector('[data-testid=sd-work-list] [data-testid=task-card]')).not.toBeNull())
  })

  it('sd: the 演示模式 badge follows the painter the server picked for the last picture (a channel added meanwhile)', async () => {
    const root = await mount({ view: 'sd' })
    await waitFor(() => expect(root.querySelectorAll('input[name=sd-size]')).toHaveLength(2))
    expect(root.textContent).toContain('演示模式')
    fake.sdDemo = false
    try {
      input(root.querySelector<HTMLTextAreaElement>('[data-testid=sd-prompt]')!, 'a lighthouse')
      await new Promise((r) => setTimeout(r, 20))
      submit(root.querySelector('form')!)
      await waitFor(() => expect(root.querySelector('[data-testid=sd-work-list] [data-testid=task-card]')).not.toBeNull())
      await waitFor(() => expect(root.textContent).not.toContain('演示模式'))
    } finally {
      fake.sdDemo = true
    }
  })

  it('gallery: works with author and 做同款 to /mj', async () => {
    const root = await mount({ view: 'gallery' })
    await waitFor(() => expect(root.querySelectorAll('[data-testid=gallery-item]')).toHaveLength(2))
    expect(root.textContent).toContain('138****8000')
    const img = root.querySelector('[data-testid=gallery-item] img')!
    expect(img.getAttribute('srcset')).toContain('w1-160.png 160w')
    const asked: unknown[] = []
    const listen = (e: Event) => asked.push((e as CustomEvent).detail)
    addEventListener('lingxi-navigate', listen)
    byText(root.querySelector('[data-testid=gallery-item]')!, '做同款')!.click()
    removeEventListener('lingxi-navigate', listen)
    expect(asked).toEqual([{ path: `/mj?prompt=${encodeURIComponent('雪山上的灯塔 --ar 2:3')}` }])
  })
})
