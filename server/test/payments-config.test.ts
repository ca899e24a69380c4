import { generateKeyPairSync } from 'node:crypto'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ConfigError, configuredSecrets, loadConfig } from '../src/config.js'

// Issue 21: a WeChat Pay configuration that cannot work stops the server at start, saying why.

const dir = mkdtempSync(join(tmpdir(), 'lingxi-pay-keys-'))
const merchant = generateKeyPairSync('rsa', { modulusLength: 2048 })
const platform = generateKeyPairSync('rsa', { modulusLength: 2048 })
const keyFile = join(dir, 'apiclient_key.pem')
const pubFile = join(dir, 'pub_key.pem')
const junkFile = join(dir, 'junk.pem')
writeFileSync(keyFile, merchant.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string)
writeFileSync(pubFile, platform.publicKey.export({ type: 'spki', format: 'pem' }) as string)
writeFileSync(junkFile, 'not a key')

const V3_KEY = 'a'.repeat(32)
const full = {
  PUBLIC_URL: 'https://lingxi.example.com',
  PAY_WECHAT_MCH_ID: '1900009191',
  PAY_WECHAT_APP_ID: 'wxd678efh567hg6787',
  PAY_WECHAT_SERIAL_NO: '5157F09EFDC096DE15EBE81A47057A7232F1B8E1',
  PAY_WECHAT_PRIVATE_KEY: keyFile,
  PAY_WECHAT_PLATFORM_KEY: pubFile,
  PAY_WECHAT_PLATFORM_SERIAL: 'PUB_KEY_ID_0114232134912410000000000000',
  PAY_WECHAT_API_V3_KEY: V3_KEY
}

function problems(env: Record<string, string>): string[] {
  try {
    loadConfig(env)
  } catch (error) {
    if (error instanceof ConfigError) return error.problems
    throw error
  }
  return []
}

describe('payment settings', () => {
  it('the default: no real provider, the demo offered outside production only', () => {
    expect(loadConfig({}).payments).toEqual({ orderTtlMs: 900_000, demo: true, wechat: undefined })
    expect(loadConfig({ NODE_ENV: 'production' }).payments.demo).toBe(false)
    expect(loadConfig({ NODE_ENV: 'production', PAY_DEMO: 'on' }).payments.demo).toBe(true)
    expect(problems({ PAY_DEMO: 'maybe' })).toEqual(['PAY_DEMO must be "auto", "on" or "off"'])
  })

  it('WeChat Pay v3 with readable keys: the notify URL from PUBLIC_URL, the secrets scrubbed from logs, no demo', () => {
    const config = loadConfig(full)
    expect(config.payments.wechat).toMatchObject({
      mchId: '1900009191',
      notifyUrl: 'https://lingxi.example.com/api/v1/pay/notify/wechat',
      baseUrl: 'https://api.mch.weixin.qq.com'
    })
    expect(config.payments.demo).toBe(false)
    const secrets = configuredSecrets(config)
    expect(secrets).toContain(V3_KEY)
    expect(secrets.some((s) => s.includes('PRIVATE KEY'))).toBe(true)
  })

  it('a missing setting, an unreadable or malformed key file, a short APIv3 key: each named, and the server does not start', () => {
    const { PAY_WECHAT_SERIAL_NO: _s, ...noSerial } = full
    expect(problems(noSerial)).toEqual(['PAY_WECHAT_SERIAL_NO is required when PAY_WECHAT_MCH_ID is set'])
    expect(problems({ ...full, PAY_WECHAT_PRIVATE_KEY: join(dir, 'missing.pem') })).toEqual([
      `PAY_WECHAT_PRIVATE_KEY: cannot read ${join(dir, 'missing.pem')} (ENOENT)`
    ])
    expect(problems({ ...full, PAY_WECHAT_PLATFORM_KEY: junkFile })).toEqual([`PAY_WECHAT_PLATFORM_KEY: ${junkFile} is not a PEM public key or certificate`])
    expect(problems({ ...full, PAY_WECHAT_PRIVATE_KEY: junkFile })).toEqual([`PAY_WECHAT_PRIVATE_KEY: ${junkFile} is not a PEM private key`])
    expect(problems({ ...full, PAY_WECHAT_API_V3_KEY: 'short' })).toEqual(['PAY_WECHAT_API_V3_KEY must be the 32-character APIv3 key'])
    const { PUBLIC_URL: _p, ...noUrl } = full
    expect(problems(noUrl)[0]).toMatch(/PUBLIC_URL \(or PAY_WECHAT_NOTIFY_URL\) is required/)
    // The WeChat Pay public key and its id are optional together (the platform certificates are downloaded then).
    expect(problems({ PAY_WECHAT_MCH_ID: '1900009191' })).toHaveLength(5)
  })

  it('without the WeChat Pay public key the platform certificates are used; the key and its id go together', () => {
    const { PAY_WECHAT_PLATFORM_KEY: _k, PAY_WECHAT_PLATFORM_SERIAL: _s, ...certificates } = full
    expect(loadConfig(certificates).payments.wechat).toMatchObject({ platformKey: undefined, platformSerial: undefined })
    const { PAY_WECHAT_PLATFORM_SERIAL: _s2, ...keyOnly } = full
    expect(problems(keyOnly)).toEqual(['PAY_WECHAT_PLATFORM_SERIAL is required when PAY_WECHAT_PLATFORM_KEY is set'])
    const { PAY_WECHAT_PLATFORM_KEY: _k2, ...serialOnly } = full
    expect(problems(serialOnly)).toEqual(['PAY_WECHAT_PLATFORM_KEY is required when PAY_WECHAT_PLATFORM_SERIAL is set'])
  })

  it('Alipay: the app key and the Alipay public key are read at start; a missing one is named', () => {
    const config = loadConfig({
      PUBLIC_URL: 'https://lingxi.example.com',
      ALIPAY_APP_ID: '2021000000000001',
      ALIPAY_PRIVATE_KEY: keyFile,
      ALIPAY_PUBLIC_KEY: pubFile
    })
    expect(config.payments.alipay).toMatchObject({
      appId: '2021000000000001',
      notifyUrl: 'https://lingxi.example.com/api/v1/pay/notify/alipay',
      gateway: 'https://openapi.alipay.com/gateway.do'
    })
    expect(config.payments.demo).toBe(false)
    expect(configuredSecrets(config).some((s) => s.includes('PRIVATE KEY'))).toBe(true)
    expect(problems({ PUBLIC_URL: 'https://x.example.com', ALIPAY_APP_ID: '2021000000000001', ALIPAY_PRIVATE_KEY: keyFile })).toEqual([
      'ALIPAY_PUBLIC_KEY is required when ALIPAY_APP_ID is set'
    ])
    expect(
      problems({ PUBLIC_URL: 'https://x.example.com', ALIPAY_APP_ID: '2021000000000001', ALIPAY_PRIVATE_KEY: pubFile, ALIPAY_PUBLIC_KEY: pubFile })
    ).toEqual([`ALIPAY_PRIVATE_KEY: ${pubFile} is not a PEM private key`])
  })
})
