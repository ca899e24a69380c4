// What the parser builds with: the document and the base under which images load inline, set by
// the renderer (context) before it builds blocks, and the one way elements are made.

let doc: Document
let filesBase: string

/** Sets what `Top.r` builds with: the document, and the base under which images load inline. */
export function context(document: Document, files: string): void {
  doc = document
  filesBase = files
}

/** The base under which images load inline (Lingxi's own /files/). */
export function imagesBase(): string {
  return filesBase
}

export function fragment(): DocumentFragment {
  return doc.createDocumentFragment()
}

/** A new element with the class name given ('' for none) and children. */
export function el<K extends keyof HTMLElementTagNameMap>(tag: K, className = '', ...children: (Node | string)[]): HTMLElementTagNameMap[K] {
  const element = doc.createElement(tag)
  if (className) element.className = className
  element.append(...children)
  return element
}
