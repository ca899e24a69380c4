import { z } from 'zod'
import type { ChatRuntime } from '../../replies/runtime.js'
import { toolReplySchema } from '../../replies/wire.js'
import { type Api, defineRoute } from '../../http/api.js'
import { idField, requiredText } from '../../http/fields.js'
import { startInterpretation } from './interpret.js'
import { FRESH_MIN_MS, type HotService, SEARCH_MAX_HITS } from './service.js'
import { HOT_BASE, HOT_PERMISSION, hotListSchema, hotSearchHitSchema, hotSourceSchema } from './types.js'

const tag = 'hot'
const requiredItemId = idField('itemId')

/** Sources, lists, and 解读: a chat reply about one item, on the shared reply pipeline. */
export function registerHotRoutes(api: Api, hot: HotService, replies: ChatRuntime): void {
  const path = (p: string) => `${HOT_BASE}/${p}`

  defineRoute(
    api,
    path('sources'),
    {
      tag,
      summary: 'Hot-news sources with their cache state (demo: offline sample data)',
      body: z.object({}),
      permission: HOT_PERMISSION,
      response: z.array(hotSourceSchema)
    },
    async () => hot.sources()
  )

  defineRoute(
    api,
    path('list'),
    {
      tag,
      summary: `A source's ranked list; the last good list (stale: true) while the source fails. refresh: fetch it again first when its last attempt is over ${FRESH_MIN_MS / 1000} s old`,
      body: z.object({ sourceId: idField('sourceId'), refresh: z.boolean().optional() }),
      permission: HOT_PERMISSION,
      response: hotListSchema
    },
    async ({ body }) => hot.list(body.sourceId, { fresh: body.refresh === true })
  )

  defineRoute(
    api,
    path('search'),
    {
      tag,
      summary: `Items of every source's current list whose title or description holds q (at most ${SEARCH_MAX_HITS}, in source then rank order)`,
      body: z.object({ q: requiredText('q', { max: 50 }) }),
      permission: HOT_PERMISSION,
      response: z.array(hotSearchHitSchema)
    },
    async ({ body }) => hot.search(body.q)
  )

  defineRoute(
    api,
    path('interpret'),
    {
      tag,
      summary: 'Starts a chat reply interpreting one item (topic 热点解读); streamed at ai-chat/sse/subscribe/{requestId}, charged to tokens',
      body: z.object({ sourceId: idField('sourceId'), itemId: requiredItemId }),
      auth: true,
      permission: HOT_PERMISSION,
      response: toolReplySchema
    },
    async ({ body, auth }) => {
      const { source, item } = await hot.item(body.sourceId, body.itemId)
      return startInterpretation({ db: api.db, runtime: replies, now: api.now, auth, source, item })
    }
  )
}
