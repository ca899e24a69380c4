// @vitest-environment happy-dom
import {
  byText,
  calls,
  card,
  choose,
  done,
  fake,
  input,
  installFakePainting,
  mount,
  need,
  push,
  streams,
  submit,
  task,
  tasks,
  waitFor
} from './fake-painting.test-helper'
import { $token } from '../../core/stores'
import { $paintingDraft, $workList, putTask } from './state'

// <lingxi-painting> against a loopback fake of the painting endpoints (docs/painting-wire.md),
// including the account channel. Runs under real React and under preact/compat.

installFakePainting()

describe('<lingxi-painting> /mj', () => {
  it('logged out: a login prompt and no calls', async () => {
    $token.set(null)
    const root = await mount()
    await waitFor(() => expect(root.textContent).toContain('登录后开始 AI 绘画'))
    expect(calls).toHaveLength(0)
  })

  it('option controls follow the options typed into the prompt, and write them back', async () => {
    const root = await mount()
    await waitFor(() => expect(root.querySelector('[data-testid=mj-prompt]')).not.toBeNull())
    const text = root.querySelector<HTMLTextAreaElement>('[data-testid=mj-prompt]')!
    input(text, '橘猫 ——ar 16:9 --v 6.1 --s 250 --seed 42 --no 狗')
    const aspect = root.querySelector<HTMLSelectElement>('[data-testid=opt-aspect]')!
    await waitFor(() => expect(aspect.value).toBe('16:9'))
    expect(root.querySelector<HTMLSelectElement>('[data-testid=opt-version]')!.value).toBe('v:6.1')
    expect(root.querySelector<HTMLInputElement>('[data-testid=opt-stylize]')!.value).toBe('250')
    expect(root.querySelector<HTMLInputElement>('[data-testid=opt-seed]')!.value).toBe('42')
    // a value not offered shows as its own choice
    input(text, '橘猫 --ar 5:4')
    await waitFor(() => expect(aspect.value).toBe('5:4'))
    choose(aspect, '9:16')
    await waitFor(() => expect(text.value).toBe('橘猫 --ar 9:16'))
    choose(root.querySelector<HTMLSelectElement>('[data-testid=opt-version]')!, 'niji:6')
    await waitFor(() => expect(text.value).toBe('橘猫 --ar 9:16 --niji 6'))
    input(root.querySelector<HTMLInputElement>('[data-testid=opt-stylize]')!, '500')
    await waitFor(() => expect(text.value).toBe('橘猫 --ar 9:16 --niji 6 --s 500'))
    choose(aspect, '')
    await waitFor(() => expect(text.value).toBe('橘猫 --niji 6 --s 500'))
  })

  it('imagine → progress over the account channel → U2 loading then done, used U2 disabled', async () => {
    const root = await mount()
    await waitFor(() => expect(streams.size).toBe(1))
    const text = await waitFor(() => need<HTMLTextAreaElement>(root, '[data-testid=mj-prompt]'))
    input(text, '雨中的橘猫 --ar 16:9')
    submit(text.form!)
    await waitFor(() => expect(calls.find((c) => c.path === 'painting/imagine')?.body).toEqual({ prompt: '雨中的橘猫 --ar 16:9' }))
    const id = [...tasks.keys()][0]!
    await waitFor(() => expect(card(root, id)).not.toBeNull())
    // the prompt stays, for a variant
    expect(text.value).toBe('雨中的橘猫 --ar 16:9')
    push({ ...tasks.get(id)!, status: 'IN_PROGRESS', progress: 40 })
    await waitFor(() => expect(card(root, id)!.querySelector('[role=progressbar]')!.getAttribute('aria-valuenow')).toBe('40'))
    expect(card(root, id)!.querySelector('[data-testid=task-status]')!.textContent).toBe('绘制中 40%')
    // an older update arriving late never moves the card backwards
    push({ ...tasks.get(id)!, status: 'SUBMITTED', progress: 10 })
    push(done(tasks.get(id)!))
    await waitFor(() => expect(card(root, id)!.dataset.status).toBe('SUCCESS'))
    push({ ...tasks.get(id)!, status: 'IN_PROGRESS', progress: 90 })
    await new Promise((r) => setTimeout(r, 50))
    expect(card(root, id)!.dataset.status).toBe('SUCCESS')
    const labels = [...card(root, id)!.querySelectorAll('fieldset[aria-label="操作"] button')].map((b) => b.textContent)
    expect(labels).toEqual(['U1', 'U2', 'U3', 'U4', 'V1', 'V2', 'V3', 'V4', '🔄'])
    byText(card(root, id)!, 'U2')!.click()
    await waitFor(() => expect(calls.find((c) => c.path === 'painting/action')?.body).toEqual({ taskId: id, action: 'UPSCALE', index: 2 }))
    const up = [...tasks.values()].find((t) => t.action === 'UPSCALE')!
    await waitFor(() => expect(card(root, up.taskId)).not.toBeNull())
    expect(byText(card(root, id)!, 'U2')!.disabled).toBe(true)
    expect(byText(card(root, id)!, 'U3')!.disabled).toBe(false)
    push(done(up))
    await waitFor(() => expect(byText(card(root, up.taskId)!, '⬅️')).toBeDefined())
    byText(card(root, up.taskId)!, '⬅️')!.click()
    await waitFor(() => expect(calls.filter((c) => c.path === 'painting/action').at(-1)?.body).toEqual({ taskId: up.taskId, action: 'PAN', direction: 'left' }))
    // newest first in the working list
    await waitFor(() => expect(root.querySelectorAll('[data-testid=work-list] > li')).toHaveLength(3))
    expect(root.querySelector('[data-testid=work-list] [data-testid=task-card]')!.getAttribute('data-action')).toBe('PAN')
  })

  it('polls task/get for unfinished jobs while the channel is down', async () => {
    fake.channel = false
    const root = await mount()
    const text = await waitFor(() => need<HTMLTextAreaElement>(root, '[data-testid=mj-prompt]'))
    input(text, '一座灯塔')
    submit(text.form!)
    await waitFor(() => expect(tasks.size).toBe(1))
    const id = [...tasks.keys()][0]!
    // Still drawing, and no channel: the widget asks task/get (asserted before the task finishes, so
    // another refresh showing the result first cannot make the poll unnecessary).
    await waitFor(() => expect(calls.some((c) => c.path === 'painting/task/get' && c.body.taskId === id)).toBe(true), { timeout: 8000 })
    tasks.set(id, done(tasks.get(id)!))
    await waitFor(() => expect(card(root, id)!.dataset.status).toBe('SUCCESS'), { timeout: 8000 })
  })

  it('shows the refusal in Chinese and keeps the prompt', async () => {
    const root = await mount()
    const text = await waitFor(() => need<HTMLTextAreaElement>(root, '[data-testid=mj-prompt]'))
    const toasts: string[] = []
    const listen = (e: Event) => toasts.push((e as CustomEvent).detail.message)
    addEventListener('lingxi-toast', listen)
    input(text, '没钱的猫')
    submit(text.form!)
    await waitFor(() => expect(toasts).toContain('绘画次数不足'))
    expect(text.value).toBe('没钱的猫')
    input(text, '猫 --s 5000')
    submit(text.form!)
    await waitFor(() => expect(toasts.some((t) => t.includes('--s'))).toBe(true))
    removeEventListener('lingxi-toast', listen)
    expect(calls.filter((c) => c.path === 'painting/imagine')).toHaveLength(1)
  })

  it('describe → P1 starts an imagine with the first prompt; stop ends an unfinished job', async () => {
    const root = await mount()
    await waitFor(() => expect(root.querySelector('[data-testid=mj-prompt]')).not.toBeNull())
    const d = putTask(done(task({ action: 'DESCRIBE', prompts: ['a red fox', 'a fox in snow', 'fox, watercolor', 'fox portrait'] })))
    $workList.set([d.taskId])
    await waitFor(() => expect(card(root, d.taskId)!.querySelectorAll('ol li')).toHaveLength(4))
    byText(card(root, d.taskId)!, 'P1')!.click()
    await waitFor(() => expect(calls.find((c) => c.path === 'painting/imagine')?.body).toEqual({ prompt: 'a red fox' }))
    const started = [...tasks.values()].find((t) => t.prompt === 'a red fox')!
    await waitFor(() => expect(byText(card(root, started.taskId)!, '停止')).toBeDefined())
    byText(card(root, started.taskId)!, '停止')!.click()
    await waitFor(() => expect(card(root, started.taskId)!.dataset.status).toBe('INTERRPUT'))
    expect(card(root, started.taskId)!.querySelector('[role=progressbar]')).toBeNull()
  })

  it('the working list starts afresh at 12 jobs', async () => {
    const root = await mount()
    await waitFor(() => expect(root.querySelector('[data-testid=mj-prompt]')).not.toBeNull())
    const ids = Array.from({ length: 12 }, () => putTask(done(task({ prompt: 'x' }))).taskId)
    $workList.set(ids)
    await waitFor(() => expect(root.querySelectorAll('[data-testid=work-list] > li')).toHaveLength(12))
    const text = root.querySelector<HTMLTextAreaElement>('[data-testid=mj-prompt]')!
    input(text, '第十三个')
    submit(text.form!)
    await waitFor(() => expect(root.querySelectorAll('[data-testid=work-list] > li')).toHaveLength(1))
    expect(root.querySelector('[data-testid=work-list] p')!.textContent).toContain('第十三个')
  })

  it('takes a prompt handed over by the helper or the gallery', async () => {
    $paintingDraft.set('做同款的提示词 --ar 2:3')
    const root = await mount()
    const text = await waitFor(() => need<HTMLTextAreaElement>(root, '[data-testid=mj-prompt]'))
    await waitFor(() => expect(text.value).toBe('做同款的提示词 --ar 2:3'))
    await waitFor(() => expect($paintingDraft.get()).toBeNull())
    $paintingDraft.set('又一个')
    await waitFor(() => expect(text.value).toBe('又一个'))
  })
})
