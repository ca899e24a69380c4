// The whole schema, one file per area; Drizzle and drizzle-kit read it from here. The area files
// import each other (accounts first), never this barrel, so types flow one way.
export * from './schema-accounts.js'
export * from './schema-chat.js'
export * from './schema-storage.js'
export * from './schema-painting.js'
export * from './schema-tools.js'
export * from './schema-media.js'
export * from './schema-orders.js'
export * from './schema-payments.js'
export * from './schema-moderation.js'
export * from './schema-admin.js'
