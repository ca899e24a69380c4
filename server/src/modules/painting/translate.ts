import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { paths } from '../../paths.js'

/**
 * The prompt preview: Chinese words → English by a glossary (the prompt helper's MJHelper.json
 * words plus common subjects below), longest match first; text that is already English and
 * `--params` pass through. Words it does not know come back in `missing`, so the page can say so and
 * the person edits the English before imagine. Nothing is sent anywhere and nothing is charged.
 */
const COMMON: Record<string, string> = {
  猫: 'cat',
  小猫: 'kitten',
  猫咪: 'cat',
  狗: 'dog',
  小狗: 'puppy',
  女孩: 'girl',
  少女: 'young girl',
  男孩: 'boy',
  女人: 'woman',
  男人: 'man',
  老人: 'old man',
  孩子: 'child',
  宇航员: 'astronaut',
  机器人: 'robot',
  龙: 'dragon',
  狐狸: 'fox',
  兔子: 'rabbit',
  老虎: 'tiger',
  熊猫: 'panda',
  鸟: 'bird',
  鱼: 'fish',
  马: 'horse',
  花: 'flowers',
  樱花: 'cherry blossoms',
  荷花: 'lotus',
  树: 'tree',
  森林: 'forest',
  山: 'mountains',
  雪山: 'snowy mountains',
  湖: 'lake',
  河: 'river',
  海: 'sea',
  大海: 'ocean',
  海边: 'seaside',
  沙滩: 'beach',
  城市: 'city',
  街道: 'street',
  古镇: 'ancient town',
  寺庙: 'temple',
  城堡: 'castle',
  房子: 'house',
  天空: 'sky',
  星空: 'starry sky',
  月亮: 'moon',
  太阳: 'sun',
  云: 'clouds',
  雨: 'rain',
  雪: 'snow',
  夜晚: 'night',
  夜景: 'night view',
  日落: 'sunset',
  日出: 'sunrise',
  春天: 'spring',
  夏天: 'summer',
  秋天: 'autumn',
  冬天: 'winter',
  可爱: 'cute',
  美丽: 'beautiful',
  漂亮: 'pretty',
  红色: 'red',
  蓝色: 'blue',
  绿色: 'green',
  黄色: 'yellow',
  白色: 'white',
  黑色: 'black',
  紫色: 'purple',
  金色: 'golden',
  戴着: 'wearing',
  穿着: 'wearing',
  帽子: 'hat',
  眼镜: 'glasses',
  汉服: 'hanfu',
  咖啡: 'coffee',
  书: 'book',
  窗户: 'window',
  灯笼: 'lanterns',
  高清: 'high detail',
  细节: 'details',
  坐在: 'sitting on',
  站在: 'standing on',
  走在: 'walking on',
  飞: 'flying',
  和: 'and',
  在: 'in',
  上: 'on'
}
/** Words that carry no meaning in an English prompt. */
const DROP = ['一只', '一个', '一位', '一条', '一座', '一片', '一群', '的', '了', '着', '很', '非常']

let glossary: [string, string][] | undefined

function loadGlossary(): [string, string][] {
  if (glossary) return glossary
  const words = new Map<string, string>(Object.entries(COMMON))
  try {
    const file = JSON.parse(readFileSync(join(paths.defaultConfigDir, 'MJHelper.json'), 'utf8')) as {
      categories?: { items?: { label?: unknown; value?: unknown }[] }[]
    }
    for (const category of file.categories ?? []) {
      for (const item of category.items ?? []) {
        if (typeof item.label === 'string' && typeof item.value === 'string' && /\p{Script=Han}/u.test(item.label)) words.set(item.label, item.value)
      }
    }
  } catch {
    // The built-in words still translate.
  }
  for (const word of DROP) words.set(word, '')
  glossary = [...words.entries()].sort((a, b) => b[0].length - a[0].length)
  return glossary
}

const HAN = /\p{Script=Han}/u
const SEPARATORS = /[，、。；！？,;]/u

export function translatePrompt(prompt: string): { promptEn: string; translated: boolean; missing: string[] } {
  const text = prompt.trim()
  // Parameters (--ar 16:9 …) keep their place at the end.
  const paramAt = text.search(/(^|\s)--[a-z]/i)
  const body = paramAt >= 0 ? text.slice(0, paramAt) : text
  const params = paramAt >= 0 ? text.slice(paramAt).trim() : ''
  if (!HAN.test(body)) return { promptEn: text, translated: false, missing: [] }
  const words = loadGlossary()
  const parts: string[][] = [[]]
  const missing: string[] = []
  let unknown = ''
  const flushUnknown = () => {
    if (unknown) {
      missing.push(unknown)
      parts.at(-1)!.push(unknown)
      unknown = ''
    }
  }
  let i = 0
  while (i < body.length) {
    const ch = body[i]!
    if (SEPARATORS.test(ch)) {
      flushUnknown()
      parts.push([])
      i++
      continue
    }
    if (!HAN.test(ch)) {
      flushUnknown()
      let j = i
      while (j < body.length && !HAN.test(body[j]!) && !SEPARATORS.test(body[j]!)) j++
      const latin = body.slice(i, j).trim()
      if (latin) parts.at(-1)!.push(latin)
      i = j
      continue
    }
    const hit = words.find(([zh]) => body.startsWith(zh, i))
    if (hit) {
      flushUnknown()
      if (hit[1]) parts.at(-1)!.push(hit[1])
      i += hit[0].length
    } else {
      unknown += ch
      i++
    }
  }
  flushUnknown()
  const english = parts
    .map((words) => words.join(' ').trim())
    .filter((s) => s !== '')
    .join(', ')
  return { promptEn: [english, params].filter((s) => s !== '').join(' '), translated: true, missing }
}
