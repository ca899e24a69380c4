import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..')

export interface LingxiServer {
  url: string
  /** The server's DATA_DIR (stored files are under `files/`). */
  dataDir: string
  /** The code the console SMS provider printed for this phone (waits for it). */
  smsCode(phone: string, after?: number): Promise<string>
  /** Lines printed so far. */
  output(): string[]
  stop(): Promise<void>
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer()
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number }
      srv.close(() => resolve(port))
    })
    srv.on('error', reject)
  })
}

/** Starts the built server (`npm run build` first) on a free port with an empty DATA_DIR. */
export async function startServer(env: Record<string, string> = {}): Promise<LingxiServer> {
  const port = await freePort()
  const dataDir = mkdtempSync(join(tmpdir(), 'lingxi-e2e-'))
  const lines: string[] = []
  const child: ChildProcess = spawn(process.execPath, [join(root, 'server/dist/main.js')], {
    cwd: root,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, STATIC_ROOT: join(root, 'dist'), SMS_PROVIDER: 'console', ...env },
    stdio: ['ignore', 'pipe', 'pipe']
  })
  let buffer = ''
  const onData = (chunk: Buffer) => {
    buffer += chunk.toString()
    const parts = buffer.split('\n')
    buffer = parts.pop() ?? ''
    lines.push(...parts)
  }
  child.stdout!.on('data', onData)
  child.stderr!.on('data', (c: Buffer) => process.stderr.write(c))

  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${lines.join('\n')}`)), 180_000)
    const check = setInterval(() => {
      const first = lines.find((l) => l.startsWith('Lingxi is running at '))
      if (first) {
        clearInterval(check)
        clearTimeout(timer)
        resolve(first.slice('Lingxi is running at '.length).trim())
      }
    }, 50)
    child.on('exit', (code) => {
      clearInterval(check)
      clearTimeout(timer)
      reject(new Error(`server exited with ${code}:\n${lines.join('\n')}`))
    })
  })

  return {
    url,
    dataDir,
    output: () => [...lines],
    async smsCode(phone, after = 0) {
      for (let i = 0; i < 100; i++) {
        const hit = lines
          .slice(after)
          .reverse()
          .map((l) => /^\[sms\] \+(\d+) (\d+) (\d{4})$/.exec(l))
          .find((m) => m && m[2] === phone)
        if (hit) return hit[3]!
        await new Promise((r) => setTimeout(r, 100))
      }
      throw new Error(`no SMS code printed for ${phone}`)
    },
    async stop() {
      child.removeAllListeners('exit')
      const exited = new Promise((r) => child.once('exit', r))
      child.kill('SIGTERM')
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))])
      if (child.exitCode === null) child.kill('SIGKILL')
      rmSync(dataDir, { recursive: true, force: true })
    }
  }
}

/**
 * A partner's own web server (another origin on loopback: browsers refuse pages of a public
 * origin loading scripts from loopback). Serves `html` at every path; `url` uses `localhost`,
 * so it differs from Lingxi's `127.0.0.1` origin.
 */
export async function startPartner(html: () => string, headers: Record<string, string> = {}): Promise<{ url: string; stop(): Promise<void> }> {
  const { createServer: createHttpServer } = await import('node:http')
  const srv = createHttpServer((_, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', ...headers })
    res.end(html())
  })
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r))
  const { port } = srv.address() as { port: number }
  return { url: `http://localhost:${port}`, stop: () => new Promise((r) => srv.close(() => r())) }
}
