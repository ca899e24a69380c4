import { defineAllowanceKind } from '../../allowances/kinds.js'
import { refund, spend } from '../../allowances/ledger.js'
import type { Tx } from '../../db/database.js'
import type { PaintingTask } from '../../db/schema.js'
import type { EndStatus } from './types.js'
import type { TaskAction } from './wire.js'

export const OUT_OF_MJ_MESSAGE = '绘画次数不足，请充值后再试'

/** Painting uses: one per Midjourney or Stable Diffusion task, taken up front, given back when it fails. */
export const MJ = defineAllowanceKind({ id: 'mj', field: 'mjCount', label: '绘画次数', exhausted: OUT_OF_MJ_MESSAGE })

const ACTION_NAMES: Record<TaskAction, string> = {
  IMAGINE: '文生图',
  UPSCALE: '放大',
  VARIATION: '变化',
  REROLL: '重新生成',
  PAN: '平移',
  DESCRIBE: '图生文',
  BLEND: '混图',
  TXT2IMG: 'Stable Diffusion 文生图',
  ZOOM: '缩小扩图',
  VARY: '微调变化',
  VARY_REGION: '局部重绘',
  UPSCALE_HD: '高清放大',
  SHORTEN: '提示词精简',
  SWAP_FACE: '换脸',
  IMG2IMG: 'Stable Diffusion 图生图',
  INPAINT: 'Stable Diffusion 局部重绘'
}

const END_NAMES: Record<EndStatus, string> = { FAILURE: '失败', TIMEOUT: '超时', INTERRPUT: '已停止' }

/** Takes one mjCount for a new task and logs it, in the caller's transaction; 40200001 when there is none. */
export async function chargeTask(tx: Tx, accountId: string, task: { action: TaskAction; index?: number | null | undefined }, at: Date): Promise<void> {
  await spend(tx, accountId, MJ, 1, `绘画：${ACTION_NAMES[task.action]}${task.index ? ` ${task.index}` : ''}`, at)
}

/**
 * Gives an ended task's charge back and logs it, in the transaction that ended it: only the update
 * that ended the task calls it, so the allowance comes back exactly once.
 */
export async function refundTask(tx: Tx, task: PaintingTask, status: EndStatus, at: Date): Promise<void> {
  if (task.charged <= 0) return
  await refund(tx, task.accountId, MJ, task.charged, `绘画退回：${ACTION_NAMES[task.action as TaskAction] ?? task.action}${END_NAMES[status]}`, at)
}
