// @vitest-environment happy-dom
import { fileName, toMarkdown, type ExportedTopic } from './markdown'
import { toPlainText } from './plain'

const at = new Date(2026, 10, 26, 9, 30).getTime()

describe('toPlainText', () => {
  it('drops the markdown syntax and keeps what a reader sees', async () => {
    const md = [
      '# 标题',
      '',
      '这是**重点**和*强调*，还有`代码`与[链接](https://example.com)。',
      '',
      '- 一',
      '- 二',
      '  1. 子项',
      '',
      '```js',
      'const a = 1',
      '```',
      '',
      '| 名称 | 值 |',
      '| --- | --- |',
      '| a | 1 |',
      '',
      '> 引用',
      '',
      '公式 $E=mc^2$ 结束'
    ].join('\n')
    const text = await toPlainText(md)
    expect(text).toBe(
      [
        '标题',
        '这是重点和强调，还有代码与链接（https://example.com/）。',
        '• 一\n• 二\n  1. 子项',
        'const a = 1',
        '名称\t值\na\t1',
        '引用',
        '公式 E=mc^2 结束'
      ].join('\n\n')
    )
    expect(text).not.toMatch(/[*`#>|]/)
  })

  it('keeps raw HTML as the text it was, never as markup', async () => {
    expect(await toPlainText('<script>alert(1)</script>')).toBe('<script>alert(1)</script>')
    expect(await toPlainText('![图](https://x.test/a.png)')).toBe('[图片：图]（https://x.test/a.png）')
  })
})

describe('toMarkdown', () => {
  const topic: ExportedTopic = {
    name: '周末\n计划',
    model: 'lingxi-demo',
    roleName: null,
    left: 0,
    messages: [
      { role: 'user', content: '去哪儿？', createTime: at, status: 'complete' },
      { role: 'assistant', content: '## 建议\n\n- 爬山', createTime: at + 60_000, status: 'interrput', thinking: '想一想\n再想' }
    ]
  }

  it('writes a title, then every message under who and when, oldest first', () => {
    expect(toMarkdown(topic, at)).toBe(
      [
        '# 周末 计划',
        '',
        '> 导出于 2026-11-26 09:30 · 模型：lingxi-demo',
        '',
        '## 我 · 2026-11-26 09:30',
        '',
        '去哪儿？',
        '',
        '## 灵犀 · 2026-11-26 09:31（已中断）',
        '',
        '> 想一想',
        '> 再想',
        '',
        '## 建议',
        '',
        '- 爬山',
        ''
      ].join('\n')
    )
  })

  it('says how many older messages were left out', () => {
    expect(toMarkdown({ ...topic, left: 5, roleName: '面试官' }, at)).toContain('> 仅导出最近的 2 条消息（更早的 5 条未包含）')
    expect(toMarkdown({ ...topic, roleName: '面试官' }, at)).toContain('## 面试官 · ')
  })
})

describe('fileName', () => {
  it('makes a safe file name of any topic name', () => {
    expect(fileName('周末计划', 'md')).toBe('周末计划.md')
    expect(fileName('../../etc/passwd', 'md')).toBe('etc passwd.md')
    expect(fileName('a:b*c?"d<e>f|g\u0000h', 'png')).toBe('a b c d e f g h.png')
    expect(fileName('   ', 'md')).toBe('灵犀对话.md')
    expect(fileName('长'.repeat(100), 'md')).toBe(`${'长'.repeat(60)}.md`)
  })
})
