// A bare Hono JSON endpoint on @hono/node-server: the baseline of npm run bench (bench/scale.mjs).
import { serve } from '@hono/node-server'
import { Hono } from 'hono'

const app = new Hono()
app.post('/json', (c) => c.json({ code: 2000, message: '操作成功', data: { ok: true } }))
serve({ fetch: app.fetch, port: Number(process.env.PORT ?? 8799), hostname: '127.0.0.1' }, () => console.log('bare listening'))
