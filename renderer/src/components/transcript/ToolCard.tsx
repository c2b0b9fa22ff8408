import type { ReactNode } from 'react';
import type { ToolView } from '../../../../main/contract.js';
import { argsLine, n } from '../../lib/format.js';
import { BlockedTag, HookRuns } from './HookRuns.js';
import { ResultText } from './ResultText.js';

export interface ToolCardProps {
  tool: ToolView;
  testId: string;
  unfolded: boolean;
  onToggle(): void;
  /** Prefixes its result's and token count's test ids (a subagent's ids repeat its parent's). */
  scope?: string;
  /** What shows between the call and its result (a task's subagent). */
  children?: ReactNode;
}

/** A tool call (name and arguments) and its result exactly as the model got it: the parent's transcript's or a subagent's. */
export function ToolCard({ tool, testId, unfolded, onToggle, scope = '', children }: ToolCardProps) {
  const hex = tool.id.replace(/^#/, '');
  return (
    <div className="tool" data-testid={testId}>
      <div className="tool-head">
        <span className="tool-name">{tool.name}</span>
        <span className="tool-args mono" title={JSON.stringify(tool.args, null, 2)}>
          {argsLine(tool.args)}
        </span>
        <BlockedTag runs={tool.hooks} />
        {tool.tokens !== undefined && (
          <span className="tool-tokens muted small" data-testid={`${scope}tool-tokens-${hex}`}>
            {n(tool.tokens)} tokens
          </span>
        )}
      </div>
      {children}
      <div className="tool-result" data-testid={`${scope}tool-result-${hex}`} data-id={tool.id}>
        {tool.text ? <ResultText text={tool.text} elided={tool.elided} unfolded={unfolded} onToggle={onToggle} /> : <div className="muted small">No result yet.</div>}
      </div>
      {tool.hooks && <HookRuns runs={tool.hooks} />}
    </div>
  );
}
