import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { parse, parseAllDocuments } from 'yaml'
import { configuredSecrets, envSchema, loadConfig } from '../src/config.js'
import { paths } from '../src/paths.js'

// Images cannot be built where the tests run, so the deployment files are read instead, and held to
// what the server really is: its configuration schema (names and values), its default port, the
// probe paths, the build's output and the folders the server reads at run time (src/paths.ts).

const repo = resolve(paths.packageRoot, '..')
const read = (file: string) => readFileSync(join(repo, file), 'utf8')
const ENV_NAMES = new Set(Object.keys(envSchema.shape))
const DEFAULT_PORT = loadConfig({}).port
const HEALTH = '/healthz'
const READY = '/readyz'

// --- Dockerfile: a few lines of parser --------------------------------------------------------

interface Instruction {
  name: string
  args: string
}
interface Stage {
  image: string
  alias: string | undefined
  instructions: Instruction[]
}

function parseDockerfile(text: string): { args: Record<string, string>; stages: Stage[] } {
  const logical: string[] = []
  let current = ''
  for (const raw of text.split('\n')) {
    const line = raw.trim()
    // Comments and blank lines are dropped, also inside a continued instruction (as Docker does).
    if (line.startsWith('#') || line === '') continue
    if (line.endsWith('\\')) {
      current += `${line.slice(0, -1)} `
      continue
    }
    logical.push(current + line)
    current = ''
  }
  const args: Record<string, string> = {}
  const stages: Stage[] = []
  for (const line of logical) {
    const [, word = '', rest = ''] = /^(\S+)\s*(.*)$/s.exec(line) ?? []
    const name = word.toUpperCase()
    if (name === 'ARG' && stages.length === 0) {
      const [key = '', value = ''] = rest.split('=')
      args[key] = value
    } else if (name === 'FROM') {
      const [, image = '', alias] = /^(?:--\S+\s+)*(\S+)(?:\s+AS\s+(\S+))?$/i.exec(rest) ?? []
      stages.push({ image: image.replace(/\$\{(\w+)\}/g, (_, key: string) => args[key] ?? ''), alias, instructions: [] })
    } else {
      stages.at(-1)?.instructions.push({ name, args: rest.replace(/\s+/g, ' ').trim() })
    }
  }
  return { args, stages }
}

/** `ENV A=1 B="x y"` (or the old `ENV A 1`) as a record. */
function envOf(stage: Stage): Record<string, string> {
  const env: Record<string, string> = {}
  for (const { name, args } of stage.instructions) {
    if (name !== 'ENV') continue
    if (!args.includes('=')) {
      const [key = '', ...value] = args.split(' ')
      env[key] = value.join(' ')
      continue
    }
    for (const [, key = '', value = ''] of args.matchAll(/(\w+)=("[^"]*"|\S+)/g)) env[key] = value.replace(/^"|"$/g, '')
  }
  return env
}

const all = (stage: Stage, name: string) => stage.instructions.filter((i) => i.name === name).map((i) => i.args)
const one = (stage: Stage, name: string) => {
  const found = all(stage, name)
  expect(found, `${name} in stage ${stage.alias ?? stage.image}`).toHaveLength(1)
  return found[0] ?? ''
}

// --- shared checks ----------------------------------------------------------------------------

/** Every name is one the server reads. */
function expectKnownNames(names: Iterable<string>, where: string) {
  const unknown = [...names].filter((name) => !ENV_NAMES.has(name))
  expect(unknown, `${where}: variables the server does not read`).toEqual([])
}

/** Compose's `${NAME:?message}` / `${NAME:-default}`: a sample value, as an operator's .env would give. */
function interpolate(value: unknown): string {
  return String(value).replace(/\$\{(\w+)(?::[-?]([^}]*))?\}/g, (_, name: string, fallback: string | undefined) =>
    name === 'PUBLIC_URL' && fallback ? fallback : `sample-${name.toLowerCase().replace(/_/g, '-')}`
  )
}

const dockerfile = parseDockerfile(read('Dockerfile'))
const runtime = dockerfile.stages.at(-1)!
const imageEnv = envOf(runtime)
const command = JSON.parse(one(runtime, 'CMD')) as string[]

describe('Dockerfile', () => {
  it('builds in one stage and runs in another, on Node 20+ (bookworm slim)', () => {
    expect(dockerfile.stages.length).toBeGreaterThanOrEqual(2)
    for (const stage of dockerfile.stages) expect(stage.image).toMatch(/^node:(20|22|24)(\.\d+)*-bookworm-slim$/)
    const build = dockerfile.stages.find((stage) => stage.alias === 'build')!
    const runs = all(build, 'RUN').join(' && ')
    expect(runs).toContain('npm ci')
    expect(runs).toContain('npm run build')
    expect(runs).toMatch(/npm prune --omit=dev/)
    // What it copies out of the build comes from the build stage.
    for (const copy of all(runtime, 'COPY')) expect(copy).toMatch(/^--from=build /)
  })

  it('runs the server the build produces, as a non-root user', () => {
    expect(command).toEqual(['node', 'server/dist/main.js'])
    // tsup's `main` entry is src/main.ts → dist/main.js, the same file `npm start` of the server runs.
    expect(read('server/tsup.config.ts')).toMatch(/main: 'src\/main\.ts'/)
    expect(JSON.parse(read('server/package.json')).scripts.start).toBe('node dist/main.js')
    expect(existsSync(join(repo, 'server/src/main.ts'))).toBe(true)
    const user = one(runtime, 'USER')
    expect(user).not.toMatch(/^(root|0)(:|$)/)
  })

  it('ships every folder the server reads at run time', () => {
    const copied = all(runtime, 'COPY').map((args) => args.split(' ').at(-1)?.replace(/^\.\//, '') ?? '')
    const needed = [paths.migrations, paths.defaultConfigDir, paths.rolesData, join(paths.packageRoot, 'dist'), paths.defaultStaticRoot]
    for (const path of needed) {
      const rel = relative(repo, path).replace(/\/$/, '')
      // The image's WORKDIR is the repository's root: each needed path is, or is under, something copied.
      expect(
        copied.some((dest) => rel === dest || rel.startsWith(`${dest}/`) || dest.startsWith(`${rel}/`)),
        `${rel} is not in the image`
      ).toBe(true)
    }
    expect(one(runtime, 'WORKDIR')).toBe('/app')
  })

  it('listens where the config says, with state only under the one volume', () => {
    expectKnownNames(Object.keys(imageEnv), 'Dockerfile ENV')
    const config = loadConfig(imageEnv)
    expect(config.host).toBe('0.0.0.0')
    expect(config.port).toBe(DEFAULT_PORT)
    expect(one(runtime, 'EXPOSE')).toBe(String(DEFAULT_PORT))
    expect(config.dataDir).toBe('/data')
    expect(JSON.parse(one(runtime, 'VOLUME'))).toEqual(['/data'])
    expect(config.production).toBe(true)
  })

  it('checks its health on /healthz at the configured port', () => {
    const healthcheck = one(runtime, 'HEALTHCHECK')
    const [, options = '', json = '[]'] = /^(.*?)CMD (\[.*\])$/.exec(healthcheck) ?? []
    expect(options).toMatch(/--interval=\d+s/)
    const probe = JSON.parse(json) as string[]
    expect(probe[0]).toBe('node')
    expect(probe.join(' ')).toContain(`'${HEALTH}'`)
    expect(probe.join(' ')).toContain(`process.env.PORT || ${DEFAULT_PORT}`)
  })

  it('leaves out of the build context what the build makes itself', () => {
    const ignored = read('.dockerignore')
      .split('\n')
      .filter((line) => line && !line.startsWith('#'))
    for (const path of ['**/node_modules', 'dist', 'server/dist', 'data', '.env']) expect(ignored).toContain(path)
  })
})

// --- compose.yaml -----------------------------------------------------------------------------

interface ComposeService {
  image?: string
  build?: unknown
  command?: string | string[]
  environment?: Record<string, unknown>
  volumes?: string[]
  ports?: string[]
  depends_on?: unknown
}
const compose = parse(read('compose.yaml'), { merge: true }) as { services: Record<string, ComposeService>; volumes: Record<string, unknown> }
const nginxConf = read('deploy/nginx.conf')

/** A node's environment as the container gets it (interpolated with sample values). */
const nodeEnv = (node: ComposeService) => Object.fromEntries(Object.entries(node.environment ?? {}).map(([k, v]) => [k, interpolate(v)]))

describe('compose.yaml (the reference deployment)', () => {
  const services = compose.services
  const nodes = Object.entries(services).filter(([, s]) => s.build !== undefined)

  it('has two Lingxi nodes built from the Dockerfile, PostgreSQL, Redis and nginx', () => {
    expect(nodes.map(([name]) => name)).toEqual(['lingxi-1', 'lingxi-2'])
    for (const [, node] of nodes) expect(node.build).toBe('.')
    expect(services.postgres?.image).toMatch(/^postgres:\d+/)
    expect(services.redis?.image).toMatch(/^redis:\d+/)
    expect(services.nginx?.image).toMatch(/^nginx:/)
  })

  it('gives each node only settings the server reads, and valid ones', () => {
    const nodeIds = new Set<string>()
    for (const [name, node] of nodes) {
      const env = nodeEnv(node)
      expectKnownNames(Object.keys(env), `compose ${name}`)
      const config = loadConfig(env)
      // Shared by every node (docs/deployment.md): one database, one Redis, proxies trusted, one upload secret.
      expect(new URL(config.databaseUrl ?? '').hostname).toBe('postgres')
      expect(new URL(config.redisUrl ?? '').hostname).toBe('redis')
      expect(config.trustProxy).toBe(1)
      expect(config.host).toBe('0.0.0.0')
      expect(config.storage.uploadSecret).toBe('sample-upload-secret')
      nodeIds.add(config.nodeId)
      // Its state under the image's one volume.
      expect(config.dataDir).toBe(imageEnv.DATA_DIR)
      expect(node.volumes?.map((v) => v.split(':')[1])).toEqual([config.dataDir])
    }
    expect(nodeIds.size).toBe(nodes.length)
  })

  it('puts the nodes behind nginx with deploy/nginx.conf, only the node addresses replaced', () => {
    const nginx = services.nginx!
    const mount = nginx.volumes?.find((v) => v.startsWith('./deploy/nginx.conf:'))
    expect(mount).toBeDefined()
    const mounted = mount?.split(':')[1] ?? ''
    const script = (Array.isArray(nginx.command) ? nginx.command.at(-1) : nginx.command) ?? ''
    expect(script).toContain(`${mounted} > /etc/nginx/nginx.conf`)
    expect(script).toContain("exec nginx -g 'daemon off;'")
    // Apply the sed expressions to the real file, as the container does.
    let conf = nginxConf
    for (const [, from = '', to = ''] of script.matchAll(/-e 's\/([^/]*)\/([^/]*)\/'/g)) conf = conf.replace(new RegExp(from), to)
    const upstream = [...conf.matchAll(/^\s*server (\S+) .*# test: node$/gm)].map((m) => m[1])
    const changed = conf.split('\n').filter((line, i) => line !== nginxConf.split('\n')[i])
    expect(
      changed.every((line) => line.includes('# test: node')),
      'only the node lines change'
    ).toBe(true)
    // Each upstream server is a node's service name and the port that node listens on.
    expect(upstream).toEqual(nodes.map(([name, node]) => `${name}:${loadConfig(nodeEnv(node)).port}`))
    const listen = /^\s*listen (\d+);/m.exec(nginxConf)?.[1]
    expect(nginx.ports?.map((p) => p.split(':').at(-1))).toEqual([listen])
  })

  it('runs Redis with noeviction (the job queues) and waits for the database', () => {
    expect(services.redis?.command).toEqual(expect.arrayContaining(['--maxmemory-policy', 'noeviction']))
    for (const [, node] of nodes) expect(node.depends_on).toMatchObject({ postgres: { condition: 'service_healthy' }, redis: { condition: 'service_healthy' } })
  })
})

// --- deploy/k8s -------------------------------------------------------------------------------

interface K8sObject {
  apiVersion: string
  kind: string
  metadata: { name: string; labels?: Record<string, string> }
  [key: string]: unknown
}
const k8sDir = join(repo, 'deploy/k8s')
const k8sFiles = readdirSync(k8sDir).filter((f) => f.endsWith('.yaml'))
const k8s = k8sFiles.flatMap((file) =>
  parseAllDocuments(readFileSync(join(k8sDir, file), 'utf8')).map((doc) => {
    expect(doc.errors, file).toEqual([])
    return { file, object: doc.toJS() as K8sObject }
  })
)
const ofKind = <T>(kind: string) => k8s.filter(({ object }) => object.kind === kind).map(({ object }) => object as unknown as T)

interface Probe {
  httpGet: { path: string; port: string | number }
}
interface Container {
  name: string
  image: string
  command?: string[]
  ports: { name: string; containerPort: number }[]
  envFrom: ({ configMapRef?: { name: string } } & { secretRef?: { name: string } })[]
  env?: { name: string; value?: string; valueFrom?: unknown }[]
  readinessProbe: Probe
  livenessProbe: Probe
  startupProbe?: Probe
  volumeMounts: { name: string; mountPath: string }[]
}
interface Deployment extends K8sObject {
  spec: {
    replicas: number
    selector: { matchLabels: Record<string, string> }
    template: {
      metadata: { labels: Record<string, string> }
      spec: { terminationGracePeriodSeconds: number; securityContext: { runAsNonRoot: boolean; runAsUser: number }; containers: Container[] }
    }
  }
}
interface Service extends K8sObject {
  spec: { selector: Record<string, string>; ports: { port: number; targetPort: string | number }[] }
}

describe('deploy/k8s', () => {
  const [deployment] = ofKind<Deployment>('Deployment')
  const [service] = ofKind<Service>('Service')
  const configMaps = ofKind<K8sObject & { data: Record<string, string> }>('ConfigMap')
  const secrets = ofKind<K8sObject & { stringData: Record<string, string> }>('Secret')
  const container = deployment?.spec.template.spec.containers[0]

  it('lists every manifest in the kustomization', () => {
    const [kustomization] = ofKind<K8sObject & { resources: string[] }>('Kustomization')
    expect([...(kustomization?.resources ?? [])].sort()).toEqual(k8sFiles.filter((f) => f !== 'kustomization.yaml').sort())
    expect(ofKind('Deployment')).toHaveLength(1)
    expect(ofKind('Service')).toHaveLength(1)
  })

  it('runs the image command on the configured port, probing /readyz and /healthz', () => {
    expect(container).toBeDefined()
    if (!container) return
    expect(container.command ?? command).toEqual(command)
    const http = container.ports.find((p) => p.name === 'http')
    expect(http?.containerPort).toBe(DEFAULT_PORT)
    expect(container.readinessProbe.httpGet).toEqual({ path: READY, port: 'http' })
    expect(container.livenessProbe.httpGet).toEqual({ path: HEALTH, port: 'http' })
    if (container.startupProbe) expect(container.startupProbe.httpGet).toEqual({ path: HEALTH, port: 'http' })
  })

  it('takes its environment from the ConfigMap and the Secret, with names and values the server accepts', () => {
    if (!container) throw new Error('no container')
    const refs = container.envFrom.map((ref) => ref.configMapRef?.name ?? ref.secretRef?.name)
    expect(refs.sort()).toEqual([...configMaps.map((c) => c.metadata.name), ...secrets.map((s) => s.metadata.name)].sort())
    const configMap = configMaps[0]?.data ?? {}
    const secret = secrets[0]?.stringData ?? {}
    expectKnownNames(Object.keys(configMap), 'ConfigMap')
    expectKnownNames(Object.keys(secret), 'Secret')
    expectKnownNames(
      (container.env ?? []).map((e) => e.name),
      'container env'
    )
    const env = { ...configMap, ...secret, ...Object.fromEntries((container.env ?? []).map((e) => [e.name, e.value ?? 'pod-name'])) }
    const config = loadConfig(env)
    expect(config.port).toBe(http(container))
    expect(config.host).toBe('0.0.0.0')
    expect(config.trustProxy).toBe(1)
    // Several replicas: a shared database, Redis and storage, never the embedded PGlite.
    expect(config.databaseUrl).toBeDefined()
    expect(config.redisUrl).toBeDefined()
    expect(config.storage.s3).toBeDefined()
    // Secrets in the Secret, none in the ConfigMap.
    const inConfigMap = new Set(Object.values(configMap))
    expect(configuredSecrets(config).filter((s) => inConfigMap.has(s))).toEqual([])
    // DATA_DIR is the mounted volume.
    expect(container.volumeMounts.map((m) => m.mountPath)).toContain(config.dataDir)
  })

  it('runs as non-root, waits long enough for a graceful stop, and is reached through the Service', () => {
    if (!deployment || !service || !container) throw new Error('missing manifests')
    const pod = deployment.spec.template
    expect(deployment.spec.replicas).toBeGreaterThanOrEqual(2)
    expect(pod.spec.securityContext.runAsNonRoot).toBe(true)
    expect(pod.spec.securityContext.runAsUser).not.toBe(0)
    // The node exits within 10 s of SIGTERM (server/src/shutdown.ts); docs/deployment.md asks for ≥ 15.
    expect(pod.spec.terminationGracePeriodSeconds).toBeGreaterThanOrEqual(15)
    expect(pod.metadata.labels).toMatchObject(deployment.spec.selector.matchLabels)
    expect(pod.metadata.labels).toMatchObject(service.spec.selector)
    expect(service.spec.ports.map((p) => p.targetPort)).toEqual(['http'])
  })
})

function http(container: Container): number | undefined {
  return container.ports.find((p) => p.name === 'http')?.containerPort
}
