import type { Api, AppContext } from './api.js'
import { requireAuth, requirePermission } from './api.js'
import { type EventStreams, sseResponse } from './sse.js'

/** The URL is the chat's, as the wire has always had it (API.md); every tool publishes to it. */
export const ACCOUNT_CHANNEL_PATH = '/api/v1/ai-chat/sse/subscribe'

/**
 * `GET /api/v1/ai-chat/sse/subscribe`: every event published for the account
 * (`api.bus.publish(accountId, {event, data})`: reply deltas with their requestId, painting, music,
 * red packets), numbered per connection, no replay. Open to holders of any code in `codes` — the
 * tools that publish there (ToolModule.channelCodes).
 */
export function registerAccountChannel(api: Api, streams: EventStreams, codes: readonly string[]): void {
  api.docs.push({
    method: 'get',
    path: ACCOUNT_CHANNEL_PATH,
    tag: 'chat',
    summary: 'Every stream event of the account, each with its requestId, and job progress; no replay',
    auth: true,
    contentType: 'text/event-stream'
  })
  api.app.get(ACCOUNT_CHANNEL_PATH, requirePermission(api, codes), async (c: AppContext) => {
    const auth = await requireAuth(api, c)
    return sseResponse({
      streams,
      auth,
      c,
      async setup(sink, onClose) {
        let id = 0
        const sub = await api.bus.subscribe(auth.account.id, (event, data) => sink.send(++id, event, data))
        onClose(() => sub.close())
      }
    })
  })
}
