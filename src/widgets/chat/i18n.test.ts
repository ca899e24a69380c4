import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { $dict, setLocale, t } from './i18n'
import { $english, tr } from '../../ui/i18n'
import { en as chrome } from '../../ui/locale-en'
import { en } from './locale-en'

// The chat's chrome in English (issue 16): every t('…') of the chat's code has its English, and
// only `locale="en"` loads it, with the login dialog's and the toasts' (src/ui/i18n.test.ts).

const dir = join(process.cwd(), 'src/widgets/chat')
const sources = readdirSync(dir, { recursive: true, encoding: 'utf8' })
  // export/ writes documents (their notes are the file's text, not the chat's chrome)
  .filter((f) => /\.tsx?$/.test(f) && !f.includes('.test') && !f.includes('locale-en') && !f.startsWith('export'))
  .map((f) => readFileSync(join(dir, f), 'utf8'))
const quoted = (text: string) =>
  [...text.matchAll(/'([^']*[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef][^']*)'|"([^"]*[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef][^"]*)"/g)].map(
    (m) => (m[1] ?? m[2])!
  )
/** What the chat translates: t('…') and say('…') (also each side of a `? :` in them), IconButton labels (glyphs.tsx translates them), and the tables and messages shown through t(variable). */
const used = sources.flatMap((text) => [
  ...[...text.matchAll(/\b(?:t|say)\(([^()]*(?:\([^()]*\)[^()]*)*)\)/g)].flatMap((m) => quoted(m[1]!.split(/,\s*\{/)[0]!)),
  ...[...text.matchAll(/<IconButton\b[^>]*?\blabel=("[^"]*"|\{[^}]*\})/gs)].flatMap((m) => quoted(m[1]!)),
  ...[...text.matchAll(/^(?:export )?const (?:NOTES|DEFAULT_EXAMPLES|GROUP_LABELS|MSG_\w+)\b.*$/gm)].flatMap((m) => quoted(m[0]))
])
/** The attachment API's messages, keyed as the dictionary keys them: a 「name」 as 「{s}」, a size as {n} MB, another value as {n}. */
const server = ['attachments.ts', 'attachments-extract.ts'].flatMap((f) =>
  [...readFileSync(join(process.cwd(), 'server/src/modules/chat', f), 'utf8').matchAll(/ApiError\(\d+, ['`]([^'`]+)['`]/g)].map((m) =>
    m[1]!
      .replace(/「\$\{[^}]*\}」/g, '「{s}」')
      .replace(/\$\{mb\([^)]*\)\}/g, '{n} MB')
      .replace(/\$\{[^}]*\}/g, '{n}')
  )
)

afterEach(() => $dict.set(undefined))

describe('chat locale', () => {
  it('has the English of every text the chat translates, and nothing else', () => {
    expect(used.length).toBeGreaterThan(100)
    expect(server).toContain('附件「{s}」的文件已丢失，请重新上传')
    expect([...new Set(used)].filter((zh) => !en[zh])).toEqual([])
    expect(server.filter((zh) => !en[zh])).toEqual([])
    expect(Object.keys(en).filter((zh) => !used.includes(zh) && !server.includes(zh) && !(zh in chrome))).toEqual([])
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
