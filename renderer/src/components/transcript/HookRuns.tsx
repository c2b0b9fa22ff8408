import { visibleText, type HookRunView } from '../../../../main/contract.js';

/** How the run ended, in words: the block, the exit code, or why it was stopped (timed out, too much output, never started). */
function ending(run: HookRunView): string {
  if (run.blocked) return 'blocked the call (exit 2)';
  if (run.problem !== undefined) return `did not finish: ${run.problem}`;
  return `exited ${run.exit}`;
}

/** What the model heard of the run (core/hooks/hooks.ts): only a PreToolUse or PostToolUse exit 2 reaches it. */
function heard(run: HookRunView): string {
  if (run.blocked) return 'The tool did not run; the model got this hook’s stderr as the result.';
  if (run.event === 'PostToolUse' && run.exit === 2) return 'Its stderr follows the result the model got.';
  return 'The model was told nothing of it.';
}

function Output({ label, text }: { label: string; text: string }) {
  if (text === '') return null;
  return (
    <div className="hook-output">
      <span className="muted small">{label}</span>
      <pre className="mono small" data-testid={`hook-${label}`}>{visibleText(text.endsWith('\n') ? text.slice(0, -1) : text)}</pre>
    </div>
  );
}

/** The PreToolUse and PostToolUse hooks that ran for a call: which hook, how it ended, what it printed. */
export function HookRuns({ runs }: { runs: readonly HookRunView[] }) {
  return (
    <div className="hook-runs" data-testid="hook-runs">
      {runs.map((run, i) => (
        <div key={i} className={`hook-run${run.blocked ? ' blocked' : ''}`} data-testid="hook-run" data-event={run.event} data-exit={run.exit ?? ''}>
          <div className="hook-run-head small">
            <span className="tag">{run.event} hook</span> <code className="mono">{visibleText(run.command)}</code>{' '}
            <strong data-testid="hook-ending">{ending(run)}</strong>
            <span className="muted"> · {run.ms} ms · {run.file}</span>
          </div>
          <div className="muted small">{heard(run)}</div>
          <Output label="stderr" text={run.stderr} />
          <Output label="stdout" text={run.stdout} />
        </div>
      ))}
    </div>
  );
}

/** The mark on a call a PreToolUse hook blocked: the tool never ran (not the person's denial). */
export function BlockedTag({ runs }: { runs: readonly HookRunView[] | undefined }) {
  if (!runs?.some((r) => r.blocked)) return null;
  return (
    <span className="tag bad" data-testid="tool-blocked" title="A PreToolUse hook exited 2: the tool did not run">
      blocked by a hook
    </span>
  );
}
