import { z } from 'zod'

// Chinese labels read "手机号不能为空"; Latin ones need a space: "platform 只能是 PC 或 H5".
const say = (label: string, rest: string) => (/[A-Za-z0-9]$/.test(label) ? `${label} ${rest}` : `${label}${rest}`)
const missing = (input: unknown) => input === undefined || input === null

/** A required, trimmed string; `label` names the field in the messages. */
export function requiredText(label: string, { max = 100 }: { max?: number } = {}) {
  return z
    .string({ error: (issue) => say(label, missing(issue.input) ? '不能为空' : '格式不正确') })
    .trim()
    .min(1, say(label, '不能为空'))
    .max(max, say(label, `不能超过 ${max} 个字符`))
}

export function oneOf<const T extends readonly [string, ...string[]]>(label: string, values: T) {
  return z.enum(values, {
    error: (issue) => say(label, missing(issue.input) ? '不能为空' : `只能是 ${values.join(' 或 ')}`)
  })
}

export function literalNumber<const T extends readonly [number, ...number[]]>(label: string, values: T) {
  return z.literal(values, { error: say(label, `只能是 ${values.join(' 或 ')}`) })
}

export const fields = {
  enCode: requiredText('国家区号', { max: 8 }).regex(/^[0-9]{1,4}$/, '国家区号格式不正确'),
  phone: requiredText('手机号', { max: 32 }),
  code: requiredText('验证码', { max: 8 }).regex(/^[0-9]{4}$/, '验证码格式不正确'),
  platform: oneOf('platform', ['PC', 'H5'])
}

/** An optional trimmed string of at most `max` characters; empty counts as absent when `emptyIsAbsent`. */
export function optionalText(label: string, { max = 100 }: { max?: number } = {}) {
  return z
    .string({ error: say(label, '格式不正确') })
    .trim()
    .max(max, say(label, `不能超过 ${max} 个字符`))
    .optional()
}

/** A whole number in [min, max]. */
export function wholeNumber(label: string, min: number, max: number) {
  return z
    .number({ error: (issue) => say(label, missing(issue.input) ? '不能为空' : '必须是数字') })
    .int(say(label, '必须是整数'))
    .min(min, say(label, `不能小于 ${min}`))
    .max(max, say(label, `不能大于 ${max}`))
}

/** Paged requests (API.md): pageNum from 1, pageSize at most 100; both default when absent. */
export const pageFields = {
  pageNum: wholeNumber('pageNum', 1, 1_000_000).default(1),
  pageSize: wholeNumber('pageSize', 1, 100).default(20)
}

/** A paged answer of API.md: `{list, total, pageNum, pageSize}` (the response schema). */
export function paged<T extends z.ZodType>(item: T) {
  return z.object({ list: z.array(item), total: z.number(), pageNum: z.number(), pageSize: z.number() })
}

/** An object id sent back by the client. */
export const idField = (label: string) => requiredText(label, { max: 64 })

/** What a paged request asks for (the parsed `pageFields`). */
export interface PageRequest {
  pageNum: number
  pageSize: number
}

/**
 * One page of a list, in the paged answer of API.md: the count and the page's rows are read at the
 * same time; `rows` gets the limit and offset of the page; `toItems` turns the rows into wire items.
 */
export async function readPage<Row, Item>(
  page: PageRequest,
  total: PromiseLike<{ n: number }[]>,
  rows: (limit: number, offset: number) => PromiseLike<Row[]>,
  toItems: (rows: Row[]) => Item[] | Promise<Item[]>
): Promise<{ list: Item[]; total: number; pageNum: number; pageSize: number }> {
  const [counted, found] = await Promise.all([total, rows(page.pageSize, (page.pageNum - 1) * page.pageSize)])
  return { list: await toItems(found), total: counted[0]?.n ?? 0, pageNum: page.pageNum, pageSize: page.pageSize }
}
