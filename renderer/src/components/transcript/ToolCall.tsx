import type { ToolView } from '../../../../main/contract.js';
import { useKeel } from '../../stores/store.js';
import { Subagent } from './Subagent.js';
import { ToolCard } from './ToolCard.js';

/** A tool call of the open session and its result; a task call's card holds its subagent. */
export function ToolCall({ row }: { row: { seq: number; index: number; tool: ToolView } }) {
  const { tool } = row;
  const unfolded = useKeel((s) => Boolean(s.transcript.unfolded[tool.id]));
  return (
    <ToolCard tool={tool} testId={`turn-${row.seq}-part-${row.index}`} unfolded={unfolded} onToggle={() => useKeel.getState().transcript.toggleFold(tool.id)}>
      {(tool.subagent || tool.name === 'task') && <Subagent childId={tool.subagent?.sessionId} description={describe(tool.args)} />}
    </ToolCard>
  );
}

/** A task call's description argument: what the subagent is for. */
function describe(args: unknown): string | undefined {
  const description = (args as { description?: unknown } | null)?.description;
  return typeof description === 'string' ? description : undefined;
}
