import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Page } from '@playwright/test'
import { FAKE_MODEL, startFakeOpenAi } from '../../server/test/fakes/openai'
import { page as examplePage } from './embed-helpers'
import { type LingxiServer, startPartner, startServer } from './server'

// What the embed budget specs share: a Lingxi server whose only model is a fake OpenAI-compatible
// upstream (the offline demo model always answers with code), the example partner page, and a
// record of the bytes Chromium actually transferred.

export const KB = 1024

/** Streams `answer(question)` in small pieces from the site's only model, on the partner page. */
export async function startBudgetSite(prefix: string, answer: (question: string) => string) {
  const fake = await startFakeOpenAi()
  const pieces = (text: string) => text.match(/[\s\S]{1,6}/g)!
  fake.script((request) => ({ kind: 'stream', chunks: pieces(answer(request.body.messages.at(-1)?.content ?? '')), delayMs: 5 }))
  const dataDir = mkdtempSync(join(tmpdir(), prefix))
  mkdirSync(join(dataDir, 'config'))
  writeFileSync(
    join(dataDir, 'config', 'chatConfig.json'),
    JSON.stringify({ models: [{ id: FAKE_MODEL, name: '上游模型', provider: 'openai' }], defaultModel: FAKE_MODEL })
  )
  let server: LingxiServer | undefined
  const partner = await startPartner(() => examplePage('partner-page.html', server!))
  server = await startServer({
    CORS_ORIGINS: partner.url,
    DATA_DIR: dataDir,
    OPENAI_BASE_URL: fake.url,
    OPENAI_API_KEY: fake.apiKey,
    OPENAI_MODELS: FAKE_MODEL
  })
  const stop = async () => {
    await server?.stop()
    await partner.stop()
    await fake.close()
    rmSync(dataDir, { recursive: true, force: true })
  }
  return { server, partner, stop }
}

export interface Transfer {
  url: string
  type: string
  bytes: number
  encoding: string
}

/** Records the transferred body size of every response of these resource types the page loads. */
export function recordTransfers(page: Page, types: string[]) {
  const transfers: Promise<Transfer>[] = []
  page.on('response', (response) => {
    const type = response.request().resourceType()
    if (!types.includes(type)) return
    transfers.push(
      (async () => {
        await response.finished()
        const sizes = await response.request().sizes()
        const encoding = (await response.allHeaders())['content-encoding'] ?? 'identity'
        return { url: response.url(), type, bytes: sizes.responseBodySize, encoding }
      })()
    )
  })
  return async () => Promise.all(transfers)
}

export const sum = (list: Transfer[]) => list.reduce((n, t) => n + t.bytes, 0)
export const kb = (n: number) => `${(n / KB).toFixed(1)} KB`
export const fileName = (url: string) => new URL(url).pathname.replace('/cdn/', '')
