import { useKeel } from '../../stores/store.js';
import { splitIds } from '../../lib/linkify.js';

/** A result id as a link: opens that result in the Recall inspector. */
export function IdLink({ id }: { id: string }) {
  return (
    <button
      type="button"
      className="id-link"
      data-testid="id-link"
      data-id={id}
      title={`Open ${id} in the Recall inspector (Ctrl/Cmd+I focuses it)`}
      onClick={() => void useKeel.getState().inspector.show(id)}
    >
      {id}
    </button>
  );
}

/** Text shown exactly as given, with every `#id` in it a link. */
export function Linkified({ text }: { text: string }) {
  return (
    <>
      {splitIds(text).map((segment, i) => (segment.kind === 'id' ? <IdLink key={i} id={segment.id} /> : segment.text))}
    </>
  );
}
