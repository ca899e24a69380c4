// Test helper: makes happy-dom behave as browsers do where DOMPurify depends on it. Import it
// first in any test whose result depends on sanitising.
//
// 1. `Node.prototype.nodeName`: DOMPurify (≥ 3.4.8) reads node names through the getter on
//    Node.prototype, to resist DOM clobbering. happy-dom defines that one as `return ''` and
//    overrides it per subclass, so DOMPurify sees nameless elements: it unwraps allowed tags
//    (happy-dom#2182).
// 2. `document.createNodeIterator`: DOMPurify walks the tree with a NodeIterator and removes
//    nodes as it goes. The DOM standard moves an iterator's reference when its node is removed;
//    happy-dom's does not, so the walk stops at the first removed node and everything after it
//    stays unsanitised (happy-dom#1810).
// DOMPurify does not support happy-dom; with these two fixes its result matches jsdom and
// browsers on everything sanitize.test.ts feeds it, and that file checks first that they apply.

const PATCHED = Symbol.for('lingxi.test.dom')
const g = globalThis as unknown as Record<symbol, boolean>

const following = (node: Node, root: Node): Node | null => {
  if (node.firstChild) return node.firstChild
  for (let n: Node | null = node; n && n !== root; n = n.parentNode) if (n.nextSibling) return n.nextSibling
  return null
}

const preceding = (node: Node, root: Node): Node | null => {
  if (node === root) return null
  let p = node.previousSibling
  if (!p) return node.parentNode
  while (p.lastChild) p = p.lastChild
  return p
}

class SpecNodeIterator {
  readonly pointerBeforeReferenceNode = false
  #reference: Node
  #before: Node | null = null
  #started = false
  constructor(
    readonly root: Node,
    readonly whatToShow = 0xffffffff,
    readonly filter: NodeFilter | null = null
  ) {
    this.#reference = root
  }
  get referenceNode(): Node {
    return this.#reference
  }
  #accepts(node: Node): boolean {
    if (!((this.whatToShow >>> (node.nodeType - 1)) & 1)) return false
    if (!this.filter) return true
    const verdict = typeof this.filter === 'function' ? this.filter(node) : this.filter.acceptNode(node)
    return verdict === 1
  }
  nextNode(): Node | null {
    let node: Node | null
    if (!this.#started) {
      this.#started = true
      node = this.root
    } else {
      // a removed reference is replaced by the node that preceded it (DOM standard, "removing steps")
      const from = this.root.contains(this.#reference) ? this.#reference : (this.#before ?? this.root)
      node = following(from, this.root)
    }
    for (; node; node = following(node, this.root)) {
      if (!this.#accepts(node)) continue
      this.#before = preceding(node, this.root)
      this.#reference = node
      return node
    }
    return null
  }
  previousNode(): Node | null {
    throw new Error('previousNode is not implemented in the test NodeIterator')
  }
  detach(): void {}
}

if (!g[PATCHED]) {
  g[PATCHED] = true
  Object.defineProperty(Node.prototype, 'nodeName', {
    configurable: true,
    get(this: Node): string {
      for (let p = Object.getPrototypeOf(this); p && p !== Node.prototype; p = Object.getPrototypeOf(p)) {
        const own = Object.getOwnPropertyDescriptor(p, 'nodeName')
        if (own?.get) return own.get.call(this) as string
      }
      return ''
    }
  })
  // patched where the method lives (happy-dom's own Document class, below the window's)
  let owner: object | null = document
  while (owner && !Object.hasOwn(owner, 'createNodeIterator')) owner = Object.getPrototypeOf(owner) as object | null
  Object.defineProperty(owner ?? Document.prototype, 'createNodeIterator', {
    configurable: true,
    writable: true,
    value(root: Node, whatToShow?: number, filter?: NodeFilter | null) {
      return new SpecNodeIterator(root, whatToShow, filter ?? null) as unknown as NodeIterator
    }
  })
}

export {}
