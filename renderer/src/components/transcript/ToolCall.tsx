import type { ToolView } from '../../../../main/contract.js';
import { argsLine, n } from '../../lib/format.js';
import { useKeel } from '../../stores/store.js';
import { BlockedTag, HookRuns } from './HookRuns.js';
import { ResultText } from './ResultText.js';

/** A tool call (name and arguments) and its result exactly as the model got it. */
export function ToolCall({ row }: { row: { seq: number; index: number; tool: ToolView } }) {
  const { tool } = row;
  const unfolded = useKeel((s) => Boolean(s.transcript.unfolded[tool.id]));
  const hex = tool.id.replace(/^#/, '');
  return (
    <div className="tool" data-testid={`turn-${row.seq}-part-${row.index}`}>
      <div className="tool-head">
        <span className="tool-name">{tool.name}</span>
        <span className="tool-args mono" title={JSON.stringify(tool.args, null, 2)}>
          {argsLine(tool.args)}
        </span>
        <BlockedTag runs={tool.hooks} />
        {tool.tokens !== undefined && (
          <span className="tool-tokens muted small" data-testid={`tool-tokens-${hex}`}>
            {n(tool.tokens)} tokens
          </span>
        )}
      </div>
      <div className="tool-result" data-testid={`tool-result-${hex}`} data-id={tool.id}>
        {tool.text ? (
          <ResultText text={tool.text} elided={tool.elided} unfolded={unfolded} onToggle={() => useKeel.getState().transcript.toggleFold(tool.id)} />
        ) : (
          <div className="muted small">No result yet.</div>
        )}
      </div>
      {tool.hooks && <HookRuns runs={tool.hooks} />}
    </div>
  );
}
