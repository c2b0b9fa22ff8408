import type { SqliteStore } from '../../db/store.js';
import { clip, formatTable, localTime } from '../format.js';
import type { Writer } from '../io.js';

/** `keel sessions`: every stored session, oldest first. */
export function listSessions(store: SqliteStore, out: Writer): void {
  const sessions = store.listSessions();
  if (sessions.length === 0) {
    out.write(`No sessions yet in ${store.file}. Start one with \`keel new --workspace DIR --model FILE.gguf\`.\n`);
    return;
  }
  const rows = sessions.map((s) => {
    const turns = store.listTurns(s.id).filter((t) => t.status !== 'undone').length;
    return [String(s.id), s.kind, s.root, s.model === '' ? '-' : s.model, clip(s.title, 40) || '-', String(turns), localTime(s.createdAt)];
  });
  out.write(formatTable(
    [
      { title: 'id', right: true }, { title: 'kind' }, { title: 'workspace' }, { title: 'model' }, { title: 'title' },
      { title: 'turns', right: true }, { title: 'created' },
    ],
    rows,
  ));
}
