export { Painting, type PaintingProps, type PaintingView } from './painting'
