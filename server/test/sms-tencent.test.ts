import { describe, expect, it } from 'vitest'
import { configuredSecrets, loadConfig } from '../src/config.js'
import { SmsSendError } from '../src/sms/failure.js'
import { createTencentSmsProvider, tc3Authorization, tc3Sign } from '../src/sms/tencent.js'
import { type FakeTencentSms, startFakeTencentSms } from './fakes/tencent-sms.js'
import { configProblems, useSmsProvider } from './helpers/sms-provider.js'

const PHONE = '13800138000'
const sms = useSmsProvider('tencent', startFakeTencentSms, (fake: FakeTencentSms) => ({
  SMS_PROVIDER: 'tencent',
  TENCENT_SMS_SECRET_ID: fake.secretId,
  TENCENT_SMS_SECRET_KEY: fake.secretKey,
  TENCENT_SMS_SDK_APP_ID: fake.sdkAppId,
  TENCENT_SMS_SIGN_NAME: fake.signName,
  TENCENT_SMS_TEMPLATE_ID: fake.templateId,
  TENCENT_SMS_ENDPOINT: fake.url,
  SMS_TIMEOUT_MS: '2000'
}))
const { ctx, logText, settings } = sms

describe('TC3-HMAC-SHA256', () => {
  // The worked example of the TencentCloud API 3.0 signature documentation (签名方法 v3,
  // cloud.tencent.com/document/api/213/30654): CVM DescribeInstances, POST to cvm.tencentcloudapi.com,
  // timestamp 1551113065, with the documentation's own (masked) SecretId/SecretKey strings.
  const documented = {
    method: 'POST',
    path: '/',
    query: '',
    headers: { 'Content-Type': 'application/json; charset=utf-8', Host: 'cvm.tencentcloudapi.com' },
    payload: '{"Limit": 1, "Filters": [{"Values": ["\\u672a\\u547d\\u540d"], "Name": "instance-name"}]}',
    service: 'cvm',
    timestamp: 1551113065
  }

  it('reproduces the documented canonical request, string to sign, signature and Authorization', () => {
    const signed = tc3Sign(documented, 'Gu5t9xGARNpq86cd98joQYCN3*******')
    expect(signed.canonicalRequest).toBe(
      'POST\n/\n\ncontent-type:application/json; charset=utf-8\nhost:cvm.tencentcloudapi.com\n\ncontent-type;host\n35e9c5b0e3ae67532d3c9f17ead6c90222632e5b1ff7f6e89887f1398934f064'
    )
    expect(signed.stringToSign).toBe(
      'TC3-HMAC-SHA256\n1551113065\n2019-02-25/cvm/tc3_request\n5ffe6a04c0664d6b969fab9a13bdab201d63ee709638e2749d62a09ca18d7031'
    )
    expect(signed.signature).toBe('2230eefd229f582d8b1b891af7107b91597240707d778ab3738f756258d7652c')
    expect(tc3Authorization('AKIDz8krbsJ5yKBZQpn74WFkmLPx3*******', signed)).toBe(
      'TC3-HMAC-SHA256 Credential=AKIDz8krbsJ5yKBZQpn74WFkmLPx3*******/2019-02-25/cvm/tc3_request, SignedHeaders=content-type;host, Signature=2230eefd229f582d8b1b891af7107b91597240707d778ab3738f756258d7652c'
    )
  })

  it('signs the SMS request with content-type, host and x-tc-action, scoped to the UTC date and sms', async () => {
    await createTencentSmsProvider(settings()).send('86', PHONE, '1234', 'LOGIN')
    const request = sms.fake.requests[0]!
    expect(request.signatureOk).toBe(true)
    expect(request.headers.authorization).toMatch(
      new RegExp(
        `^TC3-HMAC-SHA256 Credential=${sms.fake.secretId}/\\d{4}-\\d\\d-\\d\\d/sms/tc3_request, SignedHeaders=content-type;host;x-tc-action, Signature=[0-9a-f]{64}$`
      )
    )
    expect(request.headers).toMatchObject({
      'content-type': 'application/json; charset=utf-8',
      'x-tc-action': 'SendSms',
      'x-tc-version': '2021-01-11',
      'x-tc-region': 'ap-guangzhou'
    })
    expect(JSON.parse(request.body)).toEqual({
      PhoneNumberSet: ['+8613800138000'],
      SmsSdkAppId: sms.fake.sdkAppId,
      SignName: sms.fake.signName,
      TemplateId: sms.fake.templateId,
      TemplateParamSet: ['1234']
    })
  })

  it('is refused when the clock is off by more than 5 minutes', async () => {
    const error = await createTencentSmsProvider({ ...settings(), now: () => Math.floor(Date.now() / 1000) - 600 })
      .send('86', PHONE, '1234', 'LOGIN')
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(SmsSendError)
    expect((error as SmsSendError).providerCode).toBe('AuthFailure.SignatureExpire')
  })
})

describe('SMS_PROVIDER=tencent through send-sms-code', () => {
  it('sends the code with the configured app, sign and template, and that code logs in', async () => {
    const res = await ctx.h.sendCode(PHONE)
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ code: 2000, message: '短信验证码已发送', data: { withoutCode: 0 } })
    expect(sms.fake.requests).toHaveLength(1)
    expect(sms.fake.requests[0]?.signatureOk).toBe(true)
    expect(sms.fake.sent).toHaveLength(1)
    const sent = sms.fake.sent[0]!
    expect(sent).toMatchObject({ phoneNumber: '+8613800138000', signName: '灵犀测试', templateId: '1110', region: 'ap-guangzhou' })
    expect(sent.templateParamSet).toEqual([expect.stringMatching(/^\d{4}$/)])
    expect(ctx.h.smsLines).toEqual([])

    const login = await ctx.h.post('/api/v1/auth/login', { enCode: '86', phone: PHONE, code: sent.templateParamSet[0], platform: 'PC' })
    expect(login.body.code).toBe(2000)
  })

  it('sends other countries in E.164', async () => {
    expect((await ctx.h.sendCode('2015550123', '1')).body.code).toBe(2000)
    expect(sms.fake.sent[0]?.phoneNumber).toBe('+12015550123')
  })

  const cases: [string, 'status' | 'error', number, number, string][] = [
    ['LimitExceeded.PhoneNumberThirtySecondLimit', 'status', 429, 42900001, '该手机号获取验证码过于频繁，请 30 秒后再试'],
    ['LimitExceeded.PhoneNumberOneHourLimit', 'status', 429, 42900001, '该手机号获取验证码过于频繁，请 1 小时后再试'],
    ['LimitExceeded.PhoneNumberDailyLimit', 'status', 429, 42900001, '该手机号今日获取验证码次数已达上限，请明天再试'],
    ['LimitExceeded.AppDailyLimit', 'status', 429, 42900001, '今日短信发送量已达上限，请明天再试'],
    ['RequestLimitExceeded', 'error', 429, 42900001, '短信发送繁忙，请稍后再试'],
    ['InvalidParameterValue.IncorrectPhoneNumber', 'status', 400, 50011008, '手机号无效，无法接收短信，请检查后重试'],
    ['FailedOperation.PhoneNumberInBlacklist', 'status', 400, 40000001, '该手机号暂时无法接收验证码短信（已被拦截或退订），请更换手机号或联系客服'],
    ['UnsupportedOperation.UnsupportedRegion', 'status', 400, 40000001, '暂不支持向该国家或地区的手机号发送验证码'],
    ['FailedOperation.InsufficientBalanceInSmsPackage', 'status', 502, 50200001, '短信发送失败，请稍后重试'],
    ['FailedOperation.TemplateIncorrectOrUnapproved', 'error', 502, 50200001, '短信发送失败，请稍后重试'],
    ['InternalError.Timeout', 'error', 502, 50200001, '短信发送失败，请稍后重试']
  ]
  for (const [providerCode, as, status, code, text] of cases) {
    it(`answers ${providerCode} (${as === 'error' ? 'Response.Error' : 'SendStatusSet'}) with ${code}`, async () => {
      sms.fake.failNext(providerCode, { as })
      await sms.expectRefusedSend(PHONE, providerCode, status, code, text)
    })
  }

  it('is refused with AuthFailure.SignatureFailure when the secret is wrong, and never logs a secret', async () => {
    const wrong = 'wrongTencentSecretKey0123456789'
    sms.use(createTencentSmsProvider({ ...settings(), secretKey: wrong }))
    const res = await ctx.h.sendCode(PHONE)
    expect(res.status).toBe(502)
    expect(res.body).toEqual({ code: 50200001, message: '短信发送失败，请稍后重试', data: null })
    expect(sms.fake.requests[0]?.signatureOk).toBe(false)
    expect(sms.fake.sent).toEqual([])
    const logged = logText()
    expect(logged).toContain('tencent SMS configuration or account problem (operator action needed): AuthFailure.SignatureFailure')
    expect(logged).not.toContain(wrong)
    expect(logged).not.toContain(sms.fake.secretKey)
  })

  it('is refused with AuthFailure.SecretIdNotFound for an unknown SecretId', async () => {
    sms.use(createTencentSmsProvider({ ...settings(), secretId: 'AKIDsomeoneElse' }))
    expect((await ctx.h.sendCode(PHONE)).body.code).toBe(50200001)
    expect(logText()).toContain('AuthFailure.SecretIdNotFound')
  })

  it('gives up on a provider that never answers, within the timeout', async () => {
    await sms.expectGivesUp(PHONE, createTencentSmsProvider({ ...settings(), timeoutMs: 300 }))
  })

  it('never logs the secret, whatever happened', async () => {
    sms.fake.failNext('LimitExceeded.PhoneNumberDailyLimit')
    await ctx.h.sendCode(PHONE)
    sms.fake.failNext('FailedOperation.SignatureIncorrectOrUnapproved', { as: 'error' })
    await ctx.h.sendCode(PHONE)
    expect(ctx.h.logger.entries.length).toBeGreaterThan(0)
    expect(logText()).not.toContain(sms.fake.secretKey)
  })
})

describe('SMS_PROVIDER=tencent settings', () => {
  it('refuses to start without every setting, naming each', () => {
    expect(configProblems({ SMS_PROVIDER: 'tencent', TENCENT_SMS_SECRET_ID: 'AKID', TENCENT_SMS_SIGN_NAME: '灵犀' })).toEqual([
      'TENCENT_SMS_SECRET_KEY is required when SMS_PROVIDER=tencent',
      'TENCENT_SMS_SDK_APP_ID is required when SMS_PROVIDER=tencent',
      'TENCENT_SMS_TEMPLATE_ID is required when SMS_PROVIDER=tencent'
    ])
    expect(() => loadConfig({ SMS_PROVIDER: 'carrier-pigeon' })).toThrow('SMS_PROVIDER must be "console" or "http" or "aliyun" or "tencent"')
  })

  it('defaults to the public endpoint and ap-guangzhou, and lists the secret for redaction', () => {
    const config = loadConfig({
      SMS_PROVIDER: 'tencent',
      TENCENT_SMS_SECRET_ID: 'AKIDexample',
      TENCENT_SMS_SECRET_KEY: 's3cretTencentKey',
      TENCENT_SMS_SDK_APP_ID: '1400000000',
      TENCENT_SMS_SIGN_NAME: '灵犀',
      TENCENT_SMS_TEMPLATE_ID: '123456',
      SMS_TIMEOUT_MS: '5000'
    })
    expect(config.sms).toMatchObject({
      provider: 'tencent',
      timeoutMs: 5000,
      tencent: { secretId: 'AKIDexample', sdkAppId: '1400000000', templateId: '123456', region: 'ap-guangzhou', endpoint: 'https://sms.tencentcloudapi.com' }
    })
    expect(configuredSecrets(config)).toContain('s3cretTencentKey')
  })
})
