import { describe, expect, it } from 'vitest'
import { demoReply } from '../src/replies/providers/demo.js'

const reply = (content: string) => demoReply([{ role: 'user', content }])

describe('the demo model', () => {
  it('says it is the offline demo and shows a heading, a list, code and a table', () => {
    const text = reply('你好')
    expect(text).toContain('灵犀离线演示模型')
    expect(text).toMatch(/^## /m)
    expect(text).toMatch(/^- /m)
    expect(text).toContain('```js')
    expect(text).toMatch(/^\| 项目 \| 内容 \|$/m)
    expect(text).not.toContain('$$')
    expect(text).not.toContain('```mermaid')
  })

  it('shows maths when asked about formulas and a mermaid diagram when asked for a flowchart', () => {
    expect(reply('给我讲讲勾股定理的公式')).toContain('$$\nE = mc^2\n$$')
    expect(reply('画一个流程图')).toContain('```mermaid\nflowchart LR')
  })
})
