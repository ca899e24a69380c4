// @vitest-environment happy-dom
import { byText, calls, card, done, fake, input, installFakePainting, mount, need, push, streams, submit, tasks, waitFor } from './fake-painting.test-helper'
import type { TaskButton } from './state'

// The actions beyond U/V on /mj (zoom, vary, custom zoom), shorten and face swap as the upstream
// offers them, and the English prompt preview, against the loopback fake of the painting wire.

installFakePainting()

const EDITS: TaskButton[] = [
  { label: '缩小 2x', action: 'ZOOM', mode: '2x' },
  { label: '自定义缩放', action: 'ZOOM', mode: 'custom' },
  { label: '强变', action: 'VARY', mode: 'strong' },
  { label: '局部重绘', action: 'VARY_REGION' },
  { label: '高清 创意', action: 'UPSCALE_HD', mode: 'creative' }
]

const tab = (root: ParentNode, name: string) => [...root.querySelectorAll<HTMLButtonElement>('[role=tab]')].find((b) => b.textContent === name)

describe('<lingxi-painting> /mj actions', () => {
  it('shows 精简 (and 换脸 only when the upstream has it); shorten submits the prompt', async () => {
    const root = await mount()
    await waitFor(() => expect(tab(root, '精简')).toBeDefined())
    expect(tab(root, '换脸')).toBeUndefined()
    tab(root, '精简')!.click()
    const text = await waitFor(() => need<HTMLTextAreaElement>(root, '[data-testid=shorten-prompt]'))
    input(text, 'a very long prompt, with many words')
    submit(text.form!)
    await waitFor(() => expect(calls.find((c) => c.path === 'painting/shorten')?.body).toEqual({ prompt: 'a very long prompt, with many words' }))
    const short = [...tasks.values()].find((t) => t.action === 'SHORTEN')!
    // the account channel carries the result: pushed before it is open, it would be lost
    await waitFor(() => expect(streams.size).toBe(1))
    push(
      done(short, {
        imageUrl: null,
        prompts: ['long prompt', 'long prompt, many words'],
        buttons: [1, 2].map((index) => ({ label: `P${index}`, action: 'PROMPT' as const, index }))
      })
    )
    await waitFor(() => expect(card(root, short.taskId)!.querySelector('ol[aria-label="精简后的提示词"]')!.textContent).toContain('long prompt, many words'))
    byText(card(root, short.taskId)!, 'P2')!.click()
    await waitFor(() => expect(calls.find((c) => c.path === 'painting/imagine')?.body).toEqual({ prompt: 'long prompt, many words' }))
  })

  it('face swap is offered when the upstream supports it', async () => {
    fake.faceSwap = true
    const root = await mount()
    await waitFor(() => expect(tab(root, '换脸')).toBeDefined())
    tab(root, '换脸')!.click()
    await waitFor(() => expect(root.querySelector('form[aria-label="换脸"]')).not.toBeNull())
  })

  it('the English prompt is shown, edited and used before imagine', async () => {
    const root = await mount()
    const text = await waitFor(() => need<HTMLTextAreaElement>(root, '[data-testid=mj-prompt]'))
    input(text, '一只猫 --ar 1:1')
    const open = await waitFor(() => need<HTMLButtonElement>(root, '[data-testid=prompt-preview]'))
    open.click()
    const english = await waitFor(() => need<HTMLTextAreaElement>(root, '[data-testid=prompt-english] textarea'))
    await waitFor(() => expect(english.value).toBe('a cat --ar 1:1'))
    input(english, 'a black cat --ar 1:1')
    byText(root.querySelector('[data-testid=prompt-english]')!, '使用英文')!.click()
    await waitFor(() => expect(text.value).toBe('a black cat --ar 1:1'))
    submit(text.form!)
    await waitFor(() => expect(calls.find((c) => c.path === 'painting/imagine')?.body).toEqual({ prompt: 'a black cat --ar 1:1' }))
  })

  it('zoom and vary press with their mode; custom zoom asks for the factor and prompt first', async () => {
    const root = await mount()
    await waitFor(() => expect(root.querySelector('[data-testid=mj-prompt]')).not.toBeNull())
    const text = need<HTMLTextAreaElement>(root, '[data-testid=mj-prompt]')
    input(text, 'a castle')
    submit(text.form!)
    await waitFor(() => expect(tasks.size).toBe(1))
    const grid = [...tasks.values()][0]!
    await waitFor(() => expect(streams.size).toBe(1))
    push(done(grid, { action: 'UPSCALE', prompt: 'a castle', promptEn: 'a castle', buttons: EDITS }))
    await waitFor(() => expect(byText(card(root, grid.taskId)!, '强变')).toBeDefined())
    byText(card(root, grid.taskId)!, '强变')!.click()
    await waitFor(() => expect(calls.find((c) => c.path === 'painting/action')?.body).toEqual({ taskId: grid.taskId, action: 'VARY', mode: 'strong' }))
    byText(card(root, grid.taskId)!, '自定义缩放')!.click()
    const form = await waitFor(() => need<HTMLFormElement>(card(root, grid.taskId)!, '[data-testid=custom-zoom]'))
    input(form.querySelector('input[type=range]')!, '1.5')
    input(form.querySelector('textarea')!, 'a castle at night')
    submit(form)
    await waitFor(() =>
      expect(calls.filter((c) => c.path === 'painting/action').at(-1)?.body).toEqual({
        taskId: grid.taskId,
        action: 'ZOOM',
        mode: 'custom',
        zoom: 1.5,
        prompt: 'a castle at night'
      })
    )
    await waitFor(() => expect(card(root, grid.taskId)!.querySelector('[data-testid=custom-zoom]')).toBeNull())
  })
})
