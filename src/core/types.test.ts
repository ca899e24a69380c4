import type * as Wire from '@lingxi/server/wire'
import { describe, expectTypeOf, it } from 'vitest'
import type { LoginResponse, LoginUser, PermissionMeta, PermissionNode, SendCodeResponse, SystemConfig } from './types'
import type { Image } from './upload'

// The public wire types of lingxi/core are written out (the npm .d.ts cannot import the server):
// `npm run test:types` fails here as soon as one of them and the server's zod schema differ.

/** An intersection as one object type, which toEqualTypeOf compares with an interface. */
type Flat<T> = { [K in keyof T]: T[K] }
describe("lingxi/core's wire types are the server's", () => {
  it('login, user, permissions, site config, images', () => {
    expectTypeOf<LoginUser>().toEqualTypeOf<Flat<Wire.UserInfo & { accessToken?: string }>>()
    expectTypeOf<LoginResponse>().toEqualTypeOf<Wire.LoginResult>()
    expectTypeOf<SendCodeResponse>().toEqualTypeOf<Wire.SendCodeResult>()
    expectTypeOf<PermissionNode>().toEqualTypeOf<Wire.PermissionNode>()
    expectTypeOf<PermissionMeta>().toEqualTypeOf<Wire.PermissionMeta>()
    expectTypeOf<SystemConfig>().toEqualTypeOf<Wire.SystemConfig>()
    expectTypeOf<Image>().toEqualTypeOf<Wire.Image>()
  })
})
