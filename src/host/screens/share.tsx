import { SharePage } from '../../widgets/chat/share/page'
import '../rest-css'

/** /share/{id}: a shared chat topic, for anyone (no login); loaded only on that route. */
export default function ShareScreen({ pathname }: { pathname: string }) {
  return <SharePage shareId={pathname.split('/')[2] ?? ''} />
}
