import { describe, expect, it } from 'vitest'
import { buildPrompt, checkPrompt, parsePrompt, setPromptOption, type ParsedPrompt } from './mj-prompt.js'

const P = (over: Partial<ParsedPrompt>): ParsedPrompt => ({ prompt: '', pictures: [], rest: '', ...over })

describe('parsePrompt: options', () => {
  it.each<[string, Partial<ParsedPrompt>]>([
    ['a cat --seed 123', { prompt: 'a cat', seed: 123 }],
    ['a cat --q 2', { prompt: 'a cat', quality: 2 }],
    ['a cat --quality .5', { prompt: 'a cat', quality: 0.5 }],
    ['a cat --q 0.25', { prompt: 'a cat', quality: 0.25 }],
    ['a cat --ar 16:9', { prompt: 'a cat', aspect: '16:9' }],
    ['a cat --aspect 9:16', { prompt: 'a cat', aspect: '9:16' }],
    ['a cat --style raw', { prompt: 'a cat', style: 'raw' }],
    ['a cat --s 250', { prompt: 'a cat', stylize: 250 }],
    ['a cat --stylize 750', { prompt: 'a cat', stylize: 750 }],
    ['a cat --v 6.1', { prompt: 'a cat', version: '6.1' }],
    ['a cat --version 5', { prompt: 'a cat', version: '5' }],
    ['a cat --niji 6', { prompt: 'a cat', niji: '6' }],
    ['a cat --niji', { prompt: 'a cat', niji: '' }],
    ['a cat --iw 1.5', { prompt: 'a cat', iw: 1.5 }],
    ['a cat --AR 3:2 --V 6', { prompt: 'a cat', aspect: '3:2', version: '6' }]
  ])('%j', (text, expected) => {
    expect(parsePrompt(text)).toEqual(P(expected))
  })

  it('reads every option at once, in any order', () => {
    expect(parsePrompt('sunset over sea --seed 42 --iw 2 --s 100 --q 1 --style raw --v 6.1 --ar 21:9')).toEqual(
      P({ prompt: 'sunset over sea', seed: 42, iw: 2, stylize: 100, quality: 1, style: 'raw', version: '6.1', aspect: '21:9' })
    )
  })

  it('--s never takes --seed, --sref or --stop', () => {
    const p = parsePrompt('a dog --seed 7 --sref https://x.test/a.png --stop 50')
    expect(p.stylize).toBeUndefined()
    expect(p.seed).toBe(7)
    expect(p.rest).toBe('--sref https://x.test/a.png --stop 50')
    expect(parsePrompt('a dog --sref 12').stylize).toBeUndefined()
    expect(parsePrompt('a dog --stop 12').stylize).toBeUndefined()
    expect(parsePrompt('a dog --seed 12').stylize).toBeUndefined()
    expect(parsePrompt('a dog --s 12 --seed 5')).toMatchObject({ stylize: 12, seed: 5 })
    expect(parsePrompt('a dog --seed 5 --s 12')).toMatchObject({ stylize: 12, seed: 5 })
    // nor do --style / --stylize confuse each other
    expect(parsePrompt('x --style raw --stylize 3')).toMatchObject({ style: 'raw', stylize: 3 })
    // --v is not --video, --q is not --quality's prefix trick
    expect(parsePrompt('x --video')).toMatchObject({ rest: '--video' })
    expect(parsePrompt('x --video').version).toBeUndefined()
  })

  it('keeps unknown options verbatim and in order', () => {
    const p = parsePrompt('castle --no people trees --tile --chaos 20 --ar 1:1 --weird 100')
    expect(p).toEqual(P({ prompt: 'castle', aspect: '1:1', rest: '--no people trees --tile --chaos 20 --weird 100' }))
  })

  it('keeps malformed known options in rest, uninterpreted', () => {
    expect(parsePrompt('x --ar wide')).toEqual(P({ prompt: 'x', rest: '--ar wide' }))
    expect(parsePrompt('x --s')).toEqual(P({ prompt: 'x', rest: '--s' }))
    expect(parsePrompt('x --seed -5')).toEqual(P({ prompt: 'x', rest: '--seed -5' }))
    expect(parsePrompt('x --seed abc')).toEqual(P({ prompt: 'x', rest: '--seed abc' }))
    expect(parsePrompt('x --ar 0:1')).toEqual(P({ prompt: 'x', rest: '--ar 0:1' }))
    expect(parsePrompt('x --q fast')).toEqual(P({ prompt: 'x', rest: '--q fast' }))
  })

  it('later duplicates win', () => {
    expect(parsePrompt('x --ar 1:1 --ar 16:9').aspect).toBe('16:9')
  })

  it('words after a known option value go back to the prompt', () => {
    expect(parsePrompt('a cat --ar 16:9 in the rain')).toEqual(P({ prompt: 'a cat in the rain', aspect: '16:9' }))
    expect(parsePrompt('a cat --niji anime style')).toEqual(P({ prompt: 'a cat anime style', niji: '' }))
  })

  it('options only, no words', () => {
    expect(parsePrompt('--ar 1:1 --v 6')).toEqual(P({ aspect: '1:1', version: '6' }))
    expect(parsePrompt('')).toEqual(P({}))
    expect(parsePrompt('   ')).toEqual(P({}))
  })

  it('never throws on odd input', () => {
    for (const t of ['--', '—', '——', '-- --', '--ar', 'http://', '<>', '--seed 99999999999999999999999', '::', '--s --seed'])
      expect(() => parsePrompt(t)).not.toThrow()
    expect(parsePrompt('--seed 99999999999999999999999').seed).toBeUndefined()
    expect(parsePrompt(undefined as unknown as string)).toEqual(P({}))
  })
})

describe('parsePrompt: leading image URLs', () => {
  it('takes http(s) URLs at the start only', () => {
    expect(parsePrompt('https://a.test/1.png http://b.test/2.jpg a red fox --iw 2')).toEqual(
      P({ pictures: ['https://a.test/1.png', 'http://b.test/2.jpg'], prompt: 'a red fox', iw: 2 })
    )
    expect(parsePrompt('a fox https://a.test/1.png')).toEqual(P({ prompt: 'a fox https://a.test/1.png' }))
  })
  it('unwraps <url> as Discord writes them', () => {
    expect(parsePrompt('<https://a.test/1.png> fox').pictures).toEqual(['https://a.test/1.png'])
  })
  it('a URL containing -- is not an option', () => {
    expect(parsePrompt('https://a.test/x--ar.png cat')).toEqual(P({ pictures: ['https://a.test/x--ar.png'], prompt: 'cat' }))
    expect(parsePrompt('https://a.test/--ar/1.png cat').pictures).toEqual(['https://a.test/--ar/1.png'])
  })
  it('pictures only', () => {
    expect(parsePrompt('https://a.test/1.png https://a.test/2.png')).toEqual(P({ pictures: ['https://a.test/1.png', 'https://a.test/2.png'] }))
  })
  it('words such as state-of-the-art keep their hyphens', () => {
    expect(parsePrompt('state-of-the-art robot --v 6')).toEqual(P({ prompt: 'state-of-the-art robot', version: '6' }))
    expect(parsePrompt('a cat--ar 1:1 dog')).toMatchObject({ prompt: 'a cat--ar 1:1 dog' })
  })
})

describe('parsePrompt: Chinese text and input methods', () => {
  it('Chinese prompt with options', () => {
    expect(parsePrompt('一只在雨中奔跑的橘猫，电影感 --ar 16:9 --v 6.1 --s 250')).toEqual(
      P({ prompt: '一只在雨中奔跑的橘猫，电影感', aspect: '16:9', version: '6.1', stylize: 250 })
    )
  })
  it('em dash, double em dash, en dash, full-width hyphen as --', () => {
    expect(parsePrompt('橘猫 —ar 16:9')).toEqual(P({ prompt: '橘猫', aspect: '16:9' }))
    expect(parsePrompt('橘猫 ——ar 16:9 ——v 6')).toEqual(P({ prompt: '橘猫', aspect: '16:9', version: '6' }))
    expect(parsePrompt('橘猫 –s 300')).toEqual(P({ prompt: '橘猫', stylize: 300 }))
    expect(parsePrompt('橘猫 －－seed 9')).toEqual(P({ prompt: '橘猫', seed: 9 }))
    expect(parsePrompt('橘猫 —no 狗')).toEqual(P({ prompt: '橘猫', rest: '--no 狗' }))
  })
  it('options glued to Chinese text', () => {
    expect(parsePrompt('一只猫--ar 16:9')).toEqual(P({ prompt: '一只猫', aspect: '16:9' }))
    expect(parsePrompt('一只猫——ar 3:4')).toEqual(P({ prompt: '一只猫', aspect: '3:4' }))
    expect(parsePrompt('一只猫，--v 6')).toEqual(P({ prompt: '一只猫，', version: '6' }))
  })
  it('a Chinese dash in prose is left alone', () => {
    expect(parsePrompt('风格——赛博朋克')).toEqual(P({ prompt: '风格——赛博朋克' }))
    expect(parsePrompt('风格——cyberpunk city')).toEqual(P({ prompt: '风格——cyberpunk city' }))
    expect(parsePrompt('猫 — 狗')).toEqual(P({ prompt: '猫 — 狗' }))
  })
  it('full-width colon and digits in values', () => {
    expect(parsePrompt('猫 --ar 16：9')).toMatchObject({ aspect: '16:9' })
    expect(parsePrompt('猫 --s ２５０')).toMatchObject({ stylize: 250 })
    expect(parsePrompt('猫 --v ６．１')).toMatchObject({ version: '6.1' })
  })
  it('odd spacing: tabs, newlines, ideographic spaces, repeated spaces', () => {
    expect(parsePrompt('  a   big\tcat \n --ar\t16:9   --s  50 ')).toEqual(P({ prompt: 'a big cat', aspect: '16:9', stylize: 50 }))
    expect(parsePrompt('橘猫\u3000--ar\u30001:1')).toEqual(P({ prompt: '橘猫', aspect: '1:1' }))
  })
})

describe('buildPrompt', () => {
  it('writes the canonical order and names', () => {
    expect(
      buildPrompt(
        P({
          prompt: 'a cat',
          pictures: ['https://a.test/1.png'],
          seed: 1,
          aspect: '16:9',
          stylize: 250,
          version: '6.1',
          quality: 0.5,
          style: 'raw',
          iw: 2,
          rest: '--tile'
        })
      )
    ).toBe('https://a.test/1.png a cat --ar 16:9 --v 6.1 --style raw --s 250 --q 0.5 --iw 2 --seed 1 --tile')
  })
  it('bare niji and niji with a version', () => {
    expect(buildPrompt(P({ prompt: 'x', niji: '' }))).toBe('x --niji')
    expect(buildPrompt(P({ prompt: 'x', niji: '6' }))).toBe('x --niji 6')
  })
  it('empty', () => {
    expect(buildPrompt(P({}))).toBe('')
    expect(buildPrompt({})).toBe('')
  })
})

describe('round trips', () => {
  const samples = [
    'a cat',
    'a cat --ar 16:9 --v 6.1 --s 250',
    'https://a.test/1.png https://a.test/2.png two cats --iw 1.5 --seed 42',
    '一只在雨中奔跑的橘猫 --ar 9:16 --niji 6 --style raw --q 2',
    'x --niji',
    'x --no dogs --tile --chaos 20',
    'castle --ar 1:1 --no people trees --sref https://a.test/s.png --stop 80',
    '--ar 1:1',
    ''
  ]
  it.each(samples)('canonical %j: build(parse(x)) === x', (text) => {
    expect(buildPrompt(parsePrompt(text))).toBe(text)
  })

  const messy = [
    '  a   cat \n--aspect 16:9 --stylize 250 --version 6 ',
    '橘猫 ——ar 16：9 —s 100 —— 雨',
    'a cat --ar 16:9 in the rain --q .5',
    '一只猫--ar 3:4--v 6',
    'x --ar wide --s --seed 3',
    '<https://a.test/1.png> fox --iw .5 --no tail',
    'x --seed 5 --seed 6 --S 7',
    '猫 --niji cute --v 6'
  ]
  it.each(messy)('messy %j: parse(build(parse(x))) equals parse(x)', (text) => {
    const once = parsePrompt(text)
    const built = buildPrompt(once)
    expect(parsePrompt(built)).toEqual(once)
    expect(buildPrompt(parsePrompt(built))).toBe(built)
  })
})

describe('setPromptOption', () => {
  it('adds, changes and removes one option, keeping the rest', () => {
    let t = '橘猫 --no 狗'
    t = setPromptOption(t, 'aspect', '16:9')
    expect(t).toBe('橘猫 --ar 16:9 --no 狗')
    t = setPromptOption(t, 'aspect', '1:1')
    expect(t).toBe('橘猫 --ar 1:1 --no 狗')
    t = setPromptOption(t, 'stylize', 500)
    expect(parsePrompt(t)).toMatchObject({ aspect: '1:1', stylize: 500, rest: '--no 狗', prompt: '橘猫' })
    t = setPromptOption(t, 'aspect', undefined)
    expect(t).toBe('橘猫 --s 500 --no 狗')
  })
  it('version and niji exclude each other', () => {
    expect(setPromptOption('x --niji 6', 'version', '6.1')).toBe('x --v 6.1')
    expect(setPromptOption('x --v 6.1', 'niji', '6')).toBe('x --niji 6')
  })
})

describe('checkPrompt', () => {
  it('accepts ordinary values', () => {
    expect(checkPrompt(parsePrompt('x --ar 16:9 --s 1000 --iw 3 --q .25 --seed 4294967295 --v 6'))).toBeNull()
  })
  it.each([
    ['x --s 1001', '--s'],
    ['x --seed 4294967296', '--seed'],
    ['x --iw 3.5', '--iw'],
    ['x --q 0', '--q'],
    ['x --ar 5:1', '--ar'],
    ['x --v 6 --niji 6', '--niji']
  ])('%j names %s', (text, name) => {
    expect(checkPrompt(parsePrompt(text))).toContain(name)
  })
})
