import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import * as messages from '../core/messages'
import { $english, tr } from './i18n'
import { en } from './locale-en'

// The login dialog and the toasts in English (issue 16): every text of the login dialog, every
// toast and confirmation of the chat and the login, and the login API's messages have English,
// and only `locale="en"` loads it (src/widgets/chat/i18n.test.ts: the chat's own texts;
// src/widgets/toaster/toaster.test.tsx: the toaster shows them).

const root = process.cwd()
const read = (file: string) => readFileSync(join(root, file), 'utf8')
const code = (file: string) =>
  read(file)
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/(^|\s)\/\/.*$/gm, '')
const files = (dir: string): string[] =>
  readdirSync(join(root, dir), { withFileTypes: true, recursive: true })
    .filter((f) => f.isFile() && /\.tsx?$/.test(f.name) && !/\.test\./.test(f.name))
    .map((f) => join(f.parentPath, f.name).slice(root.length + 1))
const HAN = /[\u4e00-\u9fff]/
/** A string or template literal's text, `「${name}」` as `「{s}」` and any other `${…}` as `{n}`. */
const text = (literal: string) =>
  literal
    .slice(1, -1)
    .replace(/「\$\{[^}]*\}」/g, '「{s}」')
    .replace(/\$\{retryAfter\([^)]*\)\}/g, '{n} 分钟')
    .replace(/\$\{[^}]*\}/g, '{n}')
/** The Chinese string literals of some code, also those inside a template's `${…}`. */
const literals = (source: string) =>
  [...source.matchAll(/'[^'\n]*'/g), ...source.matchAll(/`[^`\n]*`/g)].map((m) => text(m[0])).filter((s) => HAN.test(s.replace(/'[^']*'/g, '')))

const LOGIN = files('src/ui/login')
/** Data, not chrome: the default country (the picker shows its English name). */
const DATA = ['中国']
const login = LOGIN.flatMap((f) => literals(code(f))).filter((s) => !DATA.includes(s))
/** The toasts and confirmations the chat and the login show (the toaster translates them). */
const TOASTS = ['src/ui', 'src/widgets/chat', 'src/core'].flatMap(files)
const calls = (name: string) =>
  TOASTS.flatMap((f) => [...code(f).matchAll(new RegExp(`\\b${name}\\(([^;]*?)\\)(?:[;\\n,)]|$)`, 'gm'))].flatMap((m) => literals(m[1]!)))
const toasts = [...calls('toast'), ...Object.values(messages)]
const confirms = calls('confirm')
const TOASTER = literals(code('src/widgets/toaster/toaster.tsx'))
/** Any other `tr('…')` of src/ui (the dialog's close button, once translated). */
const UI = files('src/ui').flatMap((f) => [...code(f).matchAll(/\btr\('([^']+)'\)/g)].map((m) => m[1]!))
/** The login API's messages (the toaster shows them in English). */
const SERVER = ['sms-codes', 'sms-sender', 'phone', 'sessions', 'routes'].flatMap((name) =>
  [...code(`server/src/auth/${name}.ts`).matchAll(/ApiError\(\d+, ('[^']*'|`[^`]*`)\)|const [A-Z_]+ = ('[^']*')/g)].map((m) => text((m[1] ?? m[2])!))
)

const missing = (list: string[]) => [...new Set(list)].filter((zh) => !en[zh])

afterEach(() => $english.set(undefined))

describe('login and toast locale', () => {
  it('has the English of every text of the login dialog and its country picker', () => {
    expect(LOGIN.length).toBeGreaterThanOrEqual(3)
    expect(login.length).toBeGreaterThan(30)
    expect(missing(login)).toEqual([])
    // no Chinese text written straight into the markup, where it would escape the dictionary
    const bare = LOGIN.flatMap((f) => [...code(f).matchAll(/>([^<>{}]*)</g)].map((m) => m[1]!.trim()).filter((s) => HAN.test(s)))
    expect(bare).toEqual([])
  })

  it('has the English of every toast and confirmation of the chat and the login, and of the toaster', () => {
    expect(toasts).toEqual(expect.arrayContaining(['短信验证码已发送', '微信绑定成功', '举报已提交，感谢您的反馈', messages.MSG_COPIED]))
    expect(confirms).toEqual(expect.arrayContaining(['删除话题', '确定删除「{s}」吗？其中的消息将一并删除，且无法恢复。', '删除']))
    expect(missing([...toasts, ...confirms, ...TOASTER, ...UI])).toEqual([])
  })

  it('has the English of the login API’s messages', () => {
    expect(SERVER).toEqual(
      expect.arrayContaining(['请先获取验证码', '验证码错误，还可以再试 {n} 次', '获取验证码过于频繁，请 {n} 分钟后再试', '手机号格式不正确'])
    )
    expect(missing(SERVER)).toEqual([])
  })

  it('has nothing else', () => {
    const used = new Set([...login, ...toasts, ...confirms, ...TOASTER, ...UI, ...SERVER])
    expect(Object.keys(en).filter((zh) => !used.has(zh))).toEqual([])
  })

  it('is zh-CN until a chat with locale="en" loads the English (src/widgets/chat/i18n.test.ts)', () => {
    expect(tr('登录')).toBe('登录')
    $english.set(en)
    expect(tr('登录')).toBe('Sign in')
    expect(tr('没有翻译的文字')).toBe('没有翻译的文字')
  })
})
