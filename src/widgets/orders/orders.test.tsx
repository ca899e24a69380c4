// @vitest-environment happy-dom
import { answerConfirm } from '../../core/events'
import { $confirm, $token } from '../../core/stores'
import { bodies, button, fake, mount, order, PNG, startFakeOrders } from './fake-orders.test-helper'

// <lingxi-orders>: activities, detail, draft and submit, against the loopback fake of
// docs/orders-wire.md (fake-orders.test-helper.ts; my-orders.test.tsx has my orders and red packets).
// Runs under real React and preact/compat.

startFakeOrders()

describe('<lingxi-orders>', () => {
  it('asks a logged-out visitor to log in', async () => {
    $token.set(null)
    const root = mount()
    await vi.waitFor(() => expect(root.textContent).toContain('登录后接单'))
  })

  it('lists activities with reward in 元, places left, window and session links', async () => {
    const root = mount()
    await vi.waitFor(() => expect(root.querySelectorAll('[data-testid=activity-card]')).toHaveLength(3))
    expect(bodies('orders/activity/list')[0]).toEqual({ quality: false, pageNum: 1, pageSize: 12 })
    const card = root.querySelector('[data-testid=activity-card]')!
    expect(card.querySelector('[data-testid=reward]')!.textContent).toBe('12.50')
    expect(card.querySelector('[data-testid=places-left]')!.textContent).toBe('8')
    expect(card.textContent).toContain('小红书')
    expect(card.textContent).toContain('进行中')
    const links = [...card.querySelectorAll<HTMLAnchorElement>('[data-testid=session-link]')]
    expect(links.map((a) => a.getAttribute('href'))).toEqual(['/orders/ordersDetail/a1/s11', '/orders/ordersDetail/a1/s12'])
    expect(links[0]!.textContent).toContain('余 3/10')
    expect(links[1]!.textContent).toContain('未开始')
  })

  it('a refusal (no permission) is said in place of the list', async () => {
    fake.refuseList = '没有优质接单平台的权限'
    const root = mount({ quality: '' })
    await vi.waitFor(() => expect(root.querySelector('[data-testid=list-refused]')?.textContent).toBe('没有优质接单平台的权限'))
    expect(root.textContent).not.toContain('暂时没有任务')
  })

  it('filters by platform, status and keyword; quality asks for quality activities', async () => {
    const root = mount({ quality: '' })
    await vi.waitFor(() => expect(root.querySelectorAll('[data-testid=activity-card]')).toHaveLength(3))
    expect(root.querySelector('h2')!.textContent).toContain('优质接单平台')
    const selects = root.querySelectorAll('select')
    selects[0]!.value = 'douyin'
    selects[0]!.dispatchEvent(new Event('change', { bubbles: true }))
    await vi.waitFor(() => expect(bodies('orders/activity/list')).toHaveLength(2))
    selects[1]!.value = 'open'
    selects[1]!.dispatchEvent(new Event('change', { bubbles: true }))
    await vi.waitFor(() => expect(bodies('orders/activity/list')).toHaveLength(3))
    const input = root.querySelector<HTMLInputElement>('input[type=search]')!
    input.value = ' 美妆 '
    input.dispatchEvent(new Event('input', { bubbles: true }))
    button(root, '搜索')!.click()
    await vi.waitFor(() => expect(bodies('orders/activity/list')).toHaveLength(4))
    expect(bodies('orders/activity/list').at(-1)).toEqual({ quality: true, platform: 'douyin', status: 'open', keyword: '美妆', pageNum: 1, pageSize: 12 })
    expect(root.querySelector('[data-testid=session-link]')!.getAttribute('href')).toBe('/miracleOrders/ordersDetail/a1/s11')
  })

  it('detail: take an order after confirming, AI 起草 streams into the draft, copy it, submit with a screenshot', async () => {
    const root = mount({ view: 'detail', 'activity-id': 'a1', 'session-id': 's11' })
    await vi.waitFor(() => expect(root.querySelector('h2')?.textContent).toBe('活动1'))
    expect(root.querySelector('[data-testid=detail-places-left]')!.textContent).toContain('3')
    expect(root.textContent).toContain('不少于 300 字')
    button(root, '立即接单')!.click()
    await vi.waitFor(() => expect($confirm.get()?.message).toContain('占用 1 个名额'))
    answerConfirm(true)
    await vi.waitFor(() => expect(root.querySelector('[data-testid=draft]')).not.toBeNull())
    expect(bodies('orders/take')).toEqual([{ activitySessionId: 's11' }])
    expect(root.querySelector('[data-testid=order-status]')!.textContent).toBe('待提交')

    button(root, 'AI 起草')!.click()
    const draft = () => root.querySelector<HTMLTextAreaElement>('[data-testid=draft]')!
    await vi.waitFor(() => expect(draft().value).toBe('【标题】新品真好用'))
    expect(bodies('orders/draft')).toEqual([{ orderId: 'o1' }])
    await vi.waitFor(() => expect(bodies('orders/save')).toEqual([{ orderId: 'o1', draft: '【标题】新品真好用' }]))
    await vi.waitFor(() => expect(button(root, 'AI 起草')).toBeDefined())
    button(root, '复制草稿')!.click()
    await vi.waitFor(() => expect(fake.copied).toEqual(['【标题】新品真好用']))

    // nothing is sent while the form is incomplete
    button(root, '提交审核')!.click()
    await vi.waitFor(() => expect(root.querySelector('[data-testid=submit-error]')!.textContent).toBe('请填写发布链接'))
    const link = root.querySelector<HTMLInputElement>('#lx-od-link')!
    link.value = 'https://www.xiaohongshu.com/explore/1'
    link.dispatchEvent(new Event('input', { bubbles: true }))
    button(root, '提交审核')!.click()
    await vi.waitFor(() => expect(root.querySelector('[data-testid=submit-error]')!.textContent).toBe('请至少上传 1 张截图'))
    expect(bodies('orders/submit')).toHaveLength(0)

    const input = root.querySelector<HTMLInputElement>('[data-testid=screenshot-input]')!
    Object.defineProperty(input, 'files', { configurable: true, value: [new File([PNG], 'shot.png', { type: 'image/png' })] })
    input.dispatchEvent(new Event('change', { bubbles: true }))
    await vi.waitFor(() => expect(root.querySelector('[data-testid=screenshot]')!.getAttribute('data-status')).toBe('done'))
    button(root, '提交审核')!.click()
    await vi.waitFor(() =>
      expect(bodies('orders/submit')).toEqual([{ orderId: 'o1', link: 'https://www.xiaohongshu.com/explore/1', screenshots: ['/files/images/s.png'] }])
    )
    await vi.waitFor(() => expect(root.querySelector('[data-testid=order-status]')!.textContent).toBe('审核中'))
    expect(root.querySelector('[data-testid=draft]')).toBeNull()
    expect(root.querySelector('img[alt="截图 1"]')!.getAttribute('src')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/files\/images\/s\.png$/)
  })

  it('停止 ends AI 起草 where it is and keeps that text', async () => {
    fake.holdStream = true
    fake.myOrder = order()
    const root = mount({ view: 'detail', 'activity-id': 'a1', 'session-id': 's11' })
    await vi.waitFor(() => expect(button(root, 'AI 起草')).toBeDefined())
    button(root, 'AI 起草')!.click()
    const draft = () => root.querySelector<HTMLTextAreaElement>('[data-testid=draft]')!
    await vi.waitFor(() => expect(draft().value).toBe('【标题】新品'))
    expect(draft().readOnly).toBe(true)
    button(root, '停止')!.click()
    await vi.waitFor(() => expect(bodies('ai-chat/topic/message/stop')).toEqual([{ requestId: 'rq' }]))
    await vi.waitFor(() => expect(button(root, 'AI 起草')).toBeDefined())
    expect(root.textContent).toContain('已停止')
    expect(draft().value).toBe('【标题】新品')
    expect(draft().readOnly).toBe(false)
  })

  it('cancelling a taken order asks first and gives the place back', async () => {
    fake.myOrder = order()
    const root = mount({ view: 'detail', 'activity-id': 'a1', 'session-id': 's11' })
    await vi.waitFor(() => expect(button(root, '取消接单')).toBeDefined())
    button(root, '取消接单')!.click()
    await vi.waitFor(() => expect($confirm.get()?.message).toContain('名额将退回'))
    answerConfirm(false)
    await new Promise((r) => setTimeout(r, 50))
    expect(bodies('orders/cancel')).toHaveLength(0)
    button(root, '取消接单')!.click()
    await vi.waitFor(() => expect($confirm.get()).not.toBeNull())
    answerConfirm(true)
    await vi.waitFor(() => expect(root.querySelector('[data-testid=order-status]')!.textContent).toBe('已取消'))
    expect(bodies('orders/cancel')).toEqual([{ orderId: 'o1' }])
    expect(root.querySelector('[data-testid=draft]')).toBeNull()
    expect(button(root, '立即接单')).toBeDefined()
  })

  it('a rejected order shows the reason and can be submitted again', async () => {
    fake.myOrder = order({ status: 'rejected', rejectReason: '截图不清晰', link: 'https://x.example/1', screenshots: ['/files/a.png'], draft: '旧稿' })
    const root = mount({ view: 'detail', 'activity-id': 'a1', 'session-id': 's11' })
    await vi.waitFor(() => expect(root.textContent).toContain('截图不清晰'))
    expect(root.querySelector<HTMLTextAreaElement>('[data-testid=draft]')!.value).toBe('旧稿')
    expect(root.querySelector<HTMLInputElement>('#lx-od-link')!.value).toBe('https://x.example/1')
    expect(root.querySelectorAll('[data-testid=screenshot]')).toHaveLength(1)
    expect(button(root, '重新提交')).toBeDefined()
  })
})
