import type * as React from 'react'

// The events the JSX handlers of Lingxi's components receive, for `import type * as On from
// '…/ui/events'`: `function handleKeyDown(event: On.Key)`. Under React (the npm package) they are
// React's synthetic events; under preact/compat (the CDN build) the DOM events themselves, which
// carry every member these types name. Handlers are typed with them, so none is cast to fit a
// JSX prop. A DOM-only member (`isComposing`) is read from `nativeEvent`, falling back to the
// event itself under preact.

/** keydown, keyup */
export type Key<T extends Element = Element> = React.KeyboardEvent<T>
/** click and the other mouse events */
export type Click<T extends Element = Element> = React.MouseEvent<T>
/** A form's submit. */
export type Submit = React.FormEvent<HTMLFormElement>
/** input and change of a field */
export type Input<T extends Element = HTMLInputElement | HTMLTextAreaElement> = React.FormEvent<T>
/** drop, dragover, dragenter, dragleave */
export type Drag<T extends Element = Element> = React.DragEvent<T>
/** Any other event (a dialog's cancel). */
export type Any<T extends Element = Element> = React.SyntheticEvent<T>
