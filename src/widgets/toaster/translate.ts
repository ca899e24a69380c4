import { atom } from 'nanostores'
import { shared } from '../../core/shared'

/** The page's English (src/ui/i18n.ts: the same page-wide store, a copy of its line here). */
export const $english = shared('ui.en', () => atom<Record<string, string> | undefined>())

/**
 * A message in the page's language (src/ui/i18n.ts): its English when the dictionary has it, also
 * for a message with numbers or a quoted name in it (`验证码错误，还可以再试 2 次`, `确定删除「周报」吗？`),
 * keyed with `{n}` and `「{s}」`; else as it came (server messages the dictionary lacks stay Chinese).
 */
export function translate(message: string, en = $english.get()): string {
  if (!en || en[message]) return en?.[message] ?? message
  const values: Record<string, string[]> = { s: [], n: [] }
  const hold = (kind: string, value: string, mark: string) => {
    values[kind]!.push(value)
    return mark
  }
  const key = message.replace(/「([^」]*)」/g, (_, s: string) => hold('s', s, '「{s}」')).replace(/\d+/g, (n) => hold('n', n, '{n}'))
  return en[key]?.replace(/\{([ns])\}/g, (_, k: string) => values[k]!.shift() ?? '') ?? message
}
