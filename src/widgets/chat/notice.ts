import { atom } from 'nanostores'
import { ApiError, notifyError } from '../../core/api'
import { CODE_NO_ALLOWANCE } from './state'

/** The allowance notice shown by the composer (40200001), until the next question gets through. */
export const $allowanceNotice = atom<string | null>(null)

/** Why the topics could not be listed (an expired account is refused): the list says so instead of loading forever. */
export const $topicsError = atom<string | null>(null)

/** notifyError, plus the inline notice when the allowance is exhausted. */
export function report(error: unknown): void {
  notifyError(error)
  if (error instanceof ApiError && error.code === CODE_NO_ALLOWANCE) $allowanceNotice.set(error.message || '对话额度已用完')
}
