// @vitest-environment happy-dom
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { fail, ok, startApi, type Api } from '../../../tests/unit/helpers/api-server'
import { user } from '../../../tests/unit/helpers/fixtures'
import { resetCore } from '../../../tests/unit/helpers/reset'
import { formatAllowance } from '../../core/allowances'
import { configure } from '../../core/config'
import { $token, $user } from '../../core/stores'
import { formatTime } from '../../core/time'
import { formatAmount, loadBalanceLog, loadRechargeLog, redeemCard, saveProfile, validateNickName } from './state'

let server: Api
let balances = { tokens: 100, mjCount: 2, sunoCount: 1 }
beforeAll(async () => {
  server = await startApi({
    '/api/v1/user/info': () => ok({ ...user, ...balances }),
    '/api/v1/user/balanceLog': (c) => ok({ list: [], total: 0, ...(c.body as object) }),
    '/api/v1/user/rechargeLog': (c) => ok({ list: [], total: 0, ...(c.body as object) }),
    '/api/v1/user/rechargeCardCode': (c) => {
      if ((c.body as { cardCode: string }).cardCode !== 'LX-GOOD') return fail(40400001, '卡密不存在或已被使用', 404)
      balances = { tokens: 100100, mjCount: 12, sunoCount: 6 }
      return ok(balances)
    },
    '/api/v1/user/profile/save': (c) => ok({ ...user, ...balances, ...(c.body as object) })
  })
})
afterAll(() => server.close())
beforeEach(() => {
  resetCore()
  configure({ apiBase: server.url })
  $token.set('tok')
  $user.set({ ...user, ...balances })
  server.calls.length = 0
})

describe('formatting', () => {
  it('shows allowances in w+ units, or 已过期 when the account state is 0', () => {
    expect(formatAllowance(12345, 1)).toBe('1.2w+')
    expect(formatAllowance(9999, 1)).toBe('9999')
    expect(formatAllowance(-5, 1)).toBe('0')
    expect(formatAllowance(12345, 0)).toBe('已过期')
  })
  it('signs amounts and formats times', () => {
    expect([-120, 0, 20000].map(formatAmount)).toEqual(['-120', '0', '+2.0w+'])
    expect(formatTime(new Date(2026, 0, 5, 9, 7).getTime())).toBe('2026-01-05 09:07')
  })
})

describe('user center calls', () => {
  it('pages both logs', async () => {
    await loadBalanceLog(3)
    await loadRechargeLog(2, 5)
    expect(server.calls.map((c) => [c.path, c.body])).toEqual([
      ['/api/v1/user/balanceLog', { pageNum: 3, pageSize: 10 }],
      ['/api/v1/user/rechargeLog', { pageNum: 2, pageSize: 5 }]
    ])
  })

  it('redeems a trimmed card and reloads the user; a bad card changes nothing', async () => {
    await expect(redeemCard('   ')).rejects.toMatchObject({ code: 40000001, message: '请输入卡密' })
    expect(server.calls).toHaveLength(0)
    await expect(redeemCard('LX-BAD')).rejects.toMatchObject({ code: 40400001, message: '卡密不存在或已被使用' })
    expect($user.get()?.tokens).toBe(100)
    await redeemCard('  LX-GOOD ')
    expect(server.to('/api/v1/user/rechargeCardCode').at(-1)!.body).toEqual({ cardCode: 'LX-GOOD' })
    expect($user.get()).toMatchObject({ tokens: 100100, mjCount: 12, sunoCount: 6 })
  })

  it('checks the nickname before saving and stores the answer in $user', async () => {
    expect(validateNickName(' ')).toBe('昵称不能为空')
    expect(validateNickName('一'.repeat(21))).toBe('昵称不能超过 20 个字')
    await expect(saveProfile({ nickName: '' })).rejects.toMatchObject({ message: '昵称不能为空' })
    expect(server.calls).toHaveLength(0)
    await saveProfile({ nickName: ' 小灵 ', avatarUrl: '/files/avatars/a.png' })
    expect(server.calls[0]!.body).toEqual({ nickName: '小灵', avatarUrl: '/files/avatars/a.png' })
    expect($user.get()).toMatchObject({ nickName: '小灵', avatarUrl: '/files/avatars/a.png' })
  })
})
