import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { $dict, setLocale, t } from './i18n'
import { $english, tr } from '../../ui/i18n'
import { en as chrome } from '../../ui/locale-en'
import { en } from './locale-en'

// The chat's chrome in English (issue 16): every t('…') of the chat's code has its English, and
// only `locale="en"` loads it, with the login dialog's and the toasts' (src/ui/i18n.test.ts).

const dir = join(process.cwd(), 'src/widgets/chat')
const used = readdirSync(dir)
  .filter((f) => /\.tsx?$/.test(f) && !f.includes('.test'))
  .flatMap((f) => [...readFileSync(join(dir, f), 'utf8').matchAll(/\bt\('([^']+)'\)/g)].map((m) => m[1]!))

afterEach(() => $dict.set(undefined))

describe('chat locale', () => {
  it('has the English of every text the chat translates, and nothing else', () => {
    expect(used.length).toBeGreaterThan(20)
    expect([...new Set(used)].filter((zh) => !en[zh])).toEqual([])
    expect(Object.keys(en).filter((zh) => !used.includes(zh) && !(zh in chrome))).toEqual([])
  })

  it('is zh-CN without a locale or with another one, English after locale="en"', async () => {
    setLocale(undefined)
    setLocale('zh-CN')
    setLocale('fr')
    await new Promise((r) => setTimeout(r, 20))
    expect(t('发送')).toBe('发送')
    setLocale('en-US')
    await vi.waitFor(() => expect(t('发送')).toBe('Send'))
    expect(t('没有翻译的文字')).toBe('没有翻译的文字')
    // the login dialog's and the toasts' English came with it, in the page-wide store they read
    expect($dict).toBe($english)
    expect(tr('手机号登录')).toBe('Sign in with your phone')
    expect(t('短信验证码已发送')).toBe('Verification code sent')
  })
})
