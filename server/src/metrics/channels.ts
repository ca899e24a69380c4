import { channel } from 'node:diagnostics_channel'

/** A change of allowance written to the balance log (allowances/ledger.ts publishes, metrics count). */
export interface AllowanceChange {
  kind: string
  /** Positive: granted or refunded; negative: charged. */
  amount: number
}

/** Free when nothing listens (no metrics): publish checks `hasSubscribers` first. */
export const allowanceChanges = channel('lingxi:allowance-change')

export function publishAllowanceChange(change: AllowanceChange): void {
  if (allowanceChanges.hasSubscribers) allowanceChanges.publish(change)
}
