import { Redis } from 'ioredis'

/** Deletes every key under the given prefixes: a test's throwaway Redis namespace. */
export async function dropRedisKeys(url: string, ...prefixes: string[]): Promise<void> {
  const redis = new Redis(url)
  try {
    for (const prefix of prefixes) {
      const keys = await redis.keys(`${prefix}*`)
      if (keys.length > 0) await redis.del(...keys)
    }
  } finally {
    await redis.quit()
  }
}
