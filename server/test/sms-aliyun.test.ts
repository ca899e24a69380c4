import { describe, expect, it } from 'vitest'
import { configuredSecrets, loadConfig } from '../src/config.js'
import { redactingLogger } from '../src/logger.js'
import { aliyunSignature, aliyunStringToSign, canonicalQuery, createAliyunSmsProvider, percentEncode } from '../src/sms/aliyun.js'
import { SmsSendError } from '../src/sms/failure.js'
import { type FakeAliyunSms, startFakeAliyunSms } from './fakes/aliyun-sms.js'
import { memoryLogger } from './helpers/harness.js'
import { configProblems, useSmsProvider } from './helpers/sms-provider.js'

const PHONE = '13800138000'
const sms = useSmsProvider('aliyun', startFakeAliyunSms, (fake: FakeAliyunSms) => ({
  SMS_PROVIDER: 'aliyun',
  ALIYUN_SMS_ACCESS_KEY_ID: fake.accessKeyId,
  ALIYUN_SMS_ACCESS_KEY_SECRET: fake.accessKeySecret,
  ALIYUN_SMS_SIGN_NAME: fake.signName,
  ALIYUN_SMS_TEMPLATE_CODE: fake.templateCode,
  ALIYUN_SMS_ENDPOINT: fake.url,
  SMS_TIMEOUT_MS: '2000'
}))
const { ctx, logText, settings } = sms

describe('Aliyun signature (signature version 1.0, HMAC-SHA1)', () => {
  // The worked example of Aliyun's SMS documentation ("签名机制", help.aliyun.com/document_detail/101343
  // and /56189): AccessKeyId testId, AccessKeySecret testSecret, SendSms to 15300000001 with sign
  // 阿里云短信测试专用 and template SMS_71390007 — its string to sign, signature and final URL.
  const documented = {
    AccessKeyId: 'testId',
    Action: 'SendSms',
    Format: 'XML',
    OutId: '123',
    PhoneNumbers: '15300000001',
    RegionId: 'cn-hangzhou',
    SignName: '阿里云短信测试专用',
    SignatureMethod: 'HMAC-SHA1',
    SignatureNonce: '45e25e9b-0a6f-4070-8c85-2956eda1b466',
    SignatureVersion: '1.0',
    TemplateCode: 'SMS_71390007',
    TemplateParam: '{"customer":"test"}',
    Timestamp: '2017-07-12T02:42:19Z',
    Version: '2017-05-25'
  }

  it('reproduces the documented string to sign, signature and request URL', () => {
    expect(aliyunStringToSign('GET', documented)).toBe(
      'GET&%2F&AccessKeyId%3DtestId%26Action%3DSendSms%26Format%3DXML%26OutId%3D123%26PhoneNumbers%3D15300000001%26RegionId%3Dcn-hangzhou%26SignName%3D%25E9%2598%25BF%25E9%2587%258C%25E4%25BA%2591%25E7%259F%25AD%25E4%25BF%25A1%25E6%25B5%258B%25E8%25AF%2595%25E4%25B8%2593%25E7%2594%25A8%26SignatureMethod%3DHMAC-SHA1%26SignatureNonce%3D45e25e9b-0a6f-4070-8c85-2956eda1b466%26SignatureVersion%3D1.0%26TemplateCode%3DSMS_71390007%26TemplateParam%3D%257B%2522customer%2522%253A%2522test%2522%257D%26Timestamp%3D2017-07-12T02%253A42%253A19Z%26Version%3D2017-05-25'
    )
    const signature = aliyunSignature('GET', documented, 'testSecret')
    expect(signature).toBe('zJDF+Lrzhj/ThnlvIToysFRq6t4=')
    expect(`http://dysmsapi.aliyuncs.com/?Signature=${percentEncode(signature)}&${canonicalQuery(documented)}`).toBe(
      'http://dysmsapi.aliyuncs.com/?Signature=zJDF%2BLrzhj%2FThnlvIToysFRq6t4%3D&AccessKeyId=testId&Action=SendSms&Format=XML&OutId=123&PhoneNumbers=15300000001&RegionId=cn-hangzhou&SignName=%E9%98%BF%E9%87%8C%E4%BA%91%E7%9F%AD%E4%BF%A1%E6%B5%8B%E8%AF%95%E4%B8%93%E7%94%A8&SignatureMethod=HMAC-SHA1&SignatureNonce=45e25e9b-0a6f-4070-8c85-2956eda1b466&SignatureVersion=1.0&TemplateCode=SMS_71390007&TemplateParam=%7B%22customer%22%3A%22test%22%7D&Timestamp=2017-07-12T02%3A42%3A19Z&Version=2017-05-25'
    )
  })

  it("encodes by RFC 3986: space as %20, * ! ' ( ) encoded, ~ kept", () => {
    expect(percentEncode("a b*c~d!e'(f)")).toBe('a%20b%2Ac~d%21e%27%28f%29')
    expect(percentEncode('+/=&')).toBe('%2B%2F%3D%26')
  })

  it('sends exactly the documented request when given its clock and nonce', async () => {
    // The provider against the fake, with the documented example's nonce and time but the fake's keys:
    // the fake recomputes the same canonical string, so only a correctly signed request gets through.
    const stale = createAliyunSmsProvider({ ...settings(), now: () => new Date('2017-07-12T02:42:19Z'), nonce: () => '45e25e9b-0a6f-4070-8c85-2956eda1b466' })
    const error = await stale.send('86', PHONE, '1234', 'LOGIN').catch((e: unknown) => e)
    // Signed right, but 2017 is long gone: the gateway's clock check, after the signature check.
    expect(sms.fake.requests.at(-1)?.signatureOk).toBe(true)
    expect(error).toBeInstanceOf(SmsSendError)
    expect((error as SmsSendError).providerCode).toBe('InvalidTimeStamp.Expired')
    expect(sms.fake.requests.at(-1)?.query).toMatchObject({
      SignatureNonce: '45e25e9b-0a6f-4070-8c85-2956eda1b466',
      Timestamp: '2017-07-12T02:42:19Z',
      SignatureMethod: 'HMAC-SHA1',
      SignatureVersion: '1.0',
      Action: 'SendSms',
      Version: '2017-05-25',
      Format: 'JSON'
    })
  })
})

describe('SMS_PROVIDER=aliyun through send-sms-code', () => {
  it('sends the code with the configured sign and template, and that code logs in', async () => {
    const res = await ctx.h.sendCode(PHONE)
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ code: 2000, message: '短信验证码已发送', data: { withoutCode: 0 } })
    expect(sms.fake.requests).toHaveLength(1)
    expect(sms.fake.requests[0]?.signatureOk).toBe(true)
    expect(sms.fake.sent).toHaveLength(1)
    const sent = sms.fake.sent[0]!
    expect(sent).toMatchObject({ phoneNumbers: PHONE, signName: '灵犀测试', templateCode: 'SMS_154950909' })
    expect(sent.templateParam).toEqual({ code: expect.stringMatching(/^\d{4}$/) })
    expect(ctx.h.smsLines).toEqual([]) // nothing on the console

    const login = await ctx.h.post('/api/v1/auth/login', { enCode: '86', phone: PHONE, code: sent.templateParam.code, platform: 'PC' })
    expect(login.body.code).toBe(2000)
  })

  it('sends other countries with their calling code', async () => {
    expect((await ctx.h.sendCode('51234567', '852')).body.code).toBe(2000)
    expect(sms.fake.sent[0]?.phoneNumbers).toBe('85251234567')
  })

  const cases: [string, string | undefined, number, number, string][] = [
    ['isv.BUSINESS_LIMIT_CONTROL', '触发分钟级流控Permits:1', 429, 42900001, '该手机号获取验证码过于频繁，请 1 分钟后再试'],
    ['isv.BUSINESS_LIMIT_CONTROL', '触发小时级流控Permits:5', 429, 42900001, '该手机号获取验证码过于频繁，请 1 小时后再试'],
    ['isv.BUSINESS_LIMIT_CONTROL', '触发天级流控Permits:10', 429, 42900001, '该手机号今日获取验证码次数已达上限，请明天再试'],
    ['isv.DAY_LIMIT_CONTROL', undefined, 429, 42900001, '今日短信发送量已达上限，请明天再试'],
    ['isv.MOBILE_NUMBER_ILLEGAL', undefined, 400, 50011008, '手机号无效，无法接收短信，请检查后重试'],
    ['isv.BLACK_KEY_CONTROL_LIMIT', undefined, 400, 40000001, '该手机号暂时无法接收验证码短信（已被拦截或退订），请更换手机号或联系客服'],
    ['isv.AMOUNT_NOT_ENOUGH', undefined, 502, 50200001, '短信发送失败，请稍后重试'],
    ['isp.SYSTEM_ERROR', undefined, 502, 50200001, '短信发送失败，请稍后重试']
  ]
  for (const [providerCode, message, status, code, text] of cases) {
    it(`answers ${providerCode}${message ? ` (${message})` : ''} with ${code}`, async () => {
      sms.fake.failNext(providerCode, message)
      await sms.expectRefusedSend(PHONE, providerCode, status, code, text)
    })
  }

  it('reports a sign name or template the account does not have as a configuration problem', async () => {
    sms.use(createAliyunSmsProvider({ ...settings(), signName: '别人的签名' }))
    const res = await ctx.h.sendCode(PHONE)
    expect(res.status).toBe(502)
    expect(res.body).toEqual({ code: 50200001, message: '短信发送失败，请稍后重试', data: null })
    expect(logText()).toContain('configuration or account problem (operator action needed): isv.SMS_SIGNATURE_ILLEGAL')
  })

  it('is refused with SignatureDoesNotMatch when the secret is wrong, and logs neither secret nor phone', async () => {
    const wrong = 'wrongSecretValue0123456789abcd'
    sms.use(createAliyunSmsProvider({ ...settings(), accessKeySecret: wrong }))
    const res = await ctx.h.sendCode(PHONE)
    expect(res.status).toBe(502)
    expect(res.body).toEqual({ code: 50200001, message: '短信发送失败，请稍后重试', data: null })
    expect(sms.fake.requests[0]?.signatureOk).toBe(false)
    expect(sms.fake.sent).toEqual([])
    const logged = logText()
    expect(logged).toContain('SignatureDoesNotMatch')
    expect(logged).toContain('Specified signature does not match our calculation.')
    expect(logged).not.toContain(wrong)
    expect(logged).not.toContain(sms.fake.accessKeySecret)
    // The gateway echoes its string to sign, which lists the phone: that part is not logged.
    expect(logged).not.toContain(PHONE)
  })

  it('is refused with InvalidAccessKeyId.NotFound for an unknown key', async () => {
    sms.use(createAliyunSmsProvider({ ...settings(), accessKeyId: 'LTAI5tSomeoneElse' }))
    expect((await ctx.h.sendCode(PHONE)).body.code).toBe(50200001)
    expect(logText()).toContain('InvalidAccessKeyId.NotFound')
  })

  it('gives up on a provider that never answers, within the timeout', async () => {
    await sms.expectGivesUp(PHONE, createAliyunSmsProvider({ ...settings(), timeoutMs: 300 }))
  })

  it('fails cleanly when the provider cannot be reached', async () => {
    sms.use(createAliyunSmsProvider({ ...settings(), endpoint: 'http://127.0.0.1:9' }))
    const res = await ctx.h.sendCode(PHONE)
    expect(res.body).toEqual({ code: 50200001, message: '短信发送失败，请稍后重试', data: null })
  })

  it('never logs the secret, whatever happened', async () => {
    sms.fake.failNext('isv.BUSINESS_LIMIT_CONTROL')
    await ctx.h.sendCode(PHONE)
    sms.use(createAliyunSmsProvider({ ...settings(), accessKeyId: 'LTAI5tSomeoneElse' }))
    await ctx.h.sendCode(PHONE)
    expect(ctx.h.logger.entries.length).toBeGreaterThan(0)
    expect(logText()).not.toContain(sms.fake.accessKeySecret)
  })
})

describe('SMS_PROVIDER=aliyun settings', () => {
  it('refuses to start without every setting, naming each', () => {
    expect(configProblems({ SMS_PROVIDER: 'aliyun', ALIYUN_SMS_ACCESS_KEY_ID: 'LTAI5t' })).toEqual([
      'ALIYUN_SMS_ACCESS_KEY_SECRET is required when SMS_PROVIDER=aliyun',
      'ALIYUN_SMS_SIGN_NAME is required when SMS_PROVIDER=aliyun',
      'ALIYUN_SMS_TEMPLATE_CODE is required when SMS_PROVIDER=aliyun'
    ])
  })

  it('defaults to the public endpoint and lists the secret for redaction', () => {
    const config = loadConfig({
      SMS_PROVIDER: 'aliyun',
      ALIYUN_SMS_ACCESS_KEY_ID: 'LTAI5tExample',
      ALIYUN_SMS_ACCESS_KEY_SECRET: ' s3cretAliyunKey ',
      ALIYUN_SMS_SIGN_NAME: '灵犀',
      ALIYUN_SMS_TEMPLATE_CODE: 'SMS_1'
    })
    expect(config.sms).toMatchObject({
      provider: 'aliyun',
      timeoutMs: 10_000,
      aliyun: {
        accessKeyId: 'LTAI5tExample',
        accessKeySecret: 's3cretAliyunKey',
        signName: '灵犀',
        templateCode: 'SMS_1',
        endpoint: 'https://dysmsapi.aliyuncs.com'
      }
    })
    expect(configuredSecrets(config)).toContain('s3cretAliyunKey')
    const logger = memoryLogger()
    redactingLogger(logger, configuredSecrets(config)).error('sms send failed', { error: new Error('echo s3cretAliyunKey') })
    expect(JSON.stringify(logger.entries)).not.toContain('s3cretAliyunKey')
  })
})
