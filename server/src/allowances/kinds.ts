/**
 * An allowance kind: what a tool charges (chat tokens, painting uses, music uses, …). A tool brings
 * its kinds by declaring them in its module (`allowances: [MJ]`); the registry is the union over
 * the module list (registry.ts), the ledger keeps one row per account and kind (ledger.ts).
 */
export interface AllowanceKind {
  /** Its name in the ledger and the balance log (`balanceLog`'s `kind`), e.g. `mj`. */
  readonly id: string
  /** Its field in `user/info`, `rechargeLog` and `rechargeCardCode`'s answer, e.g. `mjCount`. */
  readonly field: string
  /** What the user center calls it, e.g. 绘画次数. */
  readonly label: string
  /** The message of 40200001 when a spend or a hold finds too little, e.g. 绘画次数不足，请充值后再试. */
  readonly exhausted: string
}

/** A kind, checked for its parts where it is written (the registry checks the whole list at start). */
export function defineAllowanceKind(kind: AllowanceKind): AllowanceKind {
  return kind
}

/** What a module says about allowances (the part of ToolModule the registry reads). */
export interface AllowanceDeclarer {
  readonly name: string
  /** The kinds it brings. */
  readonly allowances?: readonly AllowanceKind[]
  /** The kinds it charges, refunds or credits — its own or another's — or `all` (recharge cards credit any). */
  readonly allowanceKinds: readonly string[] | 'all'
}
