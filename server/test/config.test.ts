import { readdirSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ConfigError, loadConfig } from '../src/config.js'
import { paths } from '../src/paths.js'

describe('loadConfig', () => {
  it('has the documented defaults', () => {
    const config = loadConfig({})
    expect(config).toMatchObject({
      port: 8787,
      host: '127.0.0.1',
      dataDir: resolve('./data'),
      databaseUrl: undefined,
      redisUrl: undefined,
      publicUrl: 'http://127.0.0.1:8787',
      corsOrigins: [],
      sms: { provider: 'console', hourlyPerPhone: 5, hourlyPerIp: 30 },
      loginWithoutCodePhones: [],
      start: { tokens: 100000, mj: 20, suno: 10 },
      defaultPermissions: [
        'AI_TOOLS_CHAT',
        'AI_TOOLS_ROLE',
        'AI_TOOLS_PAINTING',
        'AI_TOOLS_SD',
        'AI_TOOLS_MUSIC',
        'AI_TOOLS_HOT',
        'AI_TOOLS_GALLERY',
        'AI_TOOLS_IMAGE'
      ],
      trustProxy: 0,
      staticRoot: resolve(paths.packageRoot, '..', 'dist')
    })
  })

  it('reads every variable', () => {
    const config = loadConfig({
      PORT: '9000',
      HOST: '0.0.0.0',
      DATA_DIR: '/srv/lingxi',
      DATABASE_URL: 'postgres://u@db:5432/lingxi',
      REDIS_URL: 'redis://cache:6379',
      PUBLIC_URL: 'https://ai.example.com/',
      CORS_ORIGINS: 'https://a.example.com, http://localhost:5173',
      SMS_PROVIDER: 'http',
      SMS_HTTP_URL: 'https://sms.internal/send',
      SMS_HTTP_TOKEN: 'secret',
      LOGIN_WITHOUT_CODE_PHONES: '86:138 0000 0000,13900000000,1:2015550123',
      START_TOKENS: '0',
      START_MJ_COUNT: '1',
      START_SUNO_COUNT: '2',
      DEFAULT_PERMISSIONS: 'AI_TOOLS_CHAT',
      SMS_HOURLY_PER_PHONE: '10',
      SMS_HOURLY_PER_IP: '100',
      TRUST_PROXY: '2',
      STATIC_ROOT: '/srv/dist'
    })
    expect(config).toMatchObject({
      port: 9000,
      host: '0.0.0.0',
      dataDir: '/srv/lingxi',
      databaseUrl: 'postgres://u@db:5432/lingxi',
      redisUrl: 'redis://cache:6379',
      publicUrl: 'https://ai.example.com',
      corsOrigins: ['https://a.example.com', 'http://localhost:5173'],
      sms: { provider: 'http', httpUrl: 'https://sms.internal/send', httpToken: 'secret', hourlyPerPhone: 10, hourlyPerIp: 100 },
      loginWithoutCodePhones: [
        { enCode: '86', phone: '13800000000' },
        { enCode: '86', phone: '13900000000' },
        { enCode: '1', phone: '2015550123' }
      ],
      start: { tokens: 0, mj: 1, suno: 2 },
      defaultPermissions: ['AI_TOOLS_CHAT'],
      trustProxy: 2,
      staticRoot: '/srv/dist'
    })
  })

  it('lists every problem in one error', () => {
    let error: unknown
    try {
      loadConfig({
        PORT: 'eighty',
        DATABASE_URL: 'mysql://x',
        CORS_ORIGINS: 'https://a.example.com/path',
        DEFAULT_PERMISSIONS: 'AI_TOOLS_CHAT,AI_TOOLS_TELEPORT',
        LOGIN_WITHOUT_CODE_PHONES: '12345',
        SMS_PROVIDER: 'carrier-pigeon',
        START_TOKENS: '-5'
      })
    } catch (e) {
      error = e
    }
    expect(error).toBeInstanceOf(ConfigError)
    const message = (error as ConfigError).message
    for (const part of [
      'PORT must be a whole number',
      'DATABASE_URL must start with postgres:// or postgresql://',
      'CORS_ORIGINS: "https://a.example.com/path" is not an origin',
      'DEFAULT_PERMISSIONS: unknown code AI_TOOLS_TELEPORT',
      'LOGIN_WITHOUT_CODE_PHONES: "12345" is not a valid phone',
      'SMS_PROVIDER must be "console" or "http"',
      'START_TOKENS must be a whole number ≥ 0'
    ]) {
      expect(message).toContain(part)
    }
  })

  it('needs SMS_HTTP_URL for the http provider', () => {
    expect(() => loadConfig({ SMS_PROVIDER: 'http' })).toThrow('SMS_HTTP_URL is required when SMS_PROVIDER=http')
  })

  it('never makes every new account an operator', () => {
    expect(() => loadConfig({ DEFAULT_PERMISSIONS: 'AI_TOOLS_CHAT,ADMIN' })).toThrow('ADMIN may not be given to every new account')
  })
})

describe('migrations', () => {
  it('are schema-neutral (npm run db:generate strips "public".)', () => {
    const files = readdirSync(paths.migrations).filter((name) => name.endsWith('.sql'))
    expect(files.length).toBeGreaterThan(0)
    for (const name of files) expect(readFileSync(join(paths.migrations, name), 'utf8')).not.toContain('"public".')
  })
})
