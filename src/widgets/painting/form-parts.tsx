import type { ReactNode } from 'react'

// What the /mj forms (imagine-form.tsx, describe-blend.tsx) share.

export const fieldClass = 'h-9 w-full rounded-lg border border-line bg-raised px-2 text-sm text-ink outline-none focus:border-primary'

export function Submit({ busy, disabled, children }: { busy: boolean; disabled?: boolean; children: ReactNode }) {
  return (
    <button
      type="submit"
      disabled={busy || disabled}
      aria-busy={busy || undefined}
      className="mt-4 w-full h-11 rounded-lg bg-primary text-primary-ink font-semibold hover:brightness-110 disabled:opacity-50 inline-flex items-center justify-center gap-2"
    >
      {busy && <span className="lx-spinner" style={{ width: 16, height: 16, borderWidth: 2 }} aria-hidden="true" />}
      {children}
    </button>
  )
}

export function Field({ label, children }: { label: string; children: ReactNode }) {
  return (
    // biome-ignore lint/a11y/noLabelWithoutControl: children is the control (a select or an input), which the label wraps
    <label className="block min-w-0">
      <span className="block mb-1 text-xs text-muted">{label}</span>
      {children}
    </label>
  )
}
