import type { ElidedMark } from '../../../../main/contract.js';
import { diffClass, foldLines, isDiff, resultBlocks, type ResultBlock } from '../../lib/resultBlocks.js';
import { n } from '../../lib/format.js';
import { Linkified } from '../common/IdLink.js';

/**
 * A result's text exactly as the model got it: monospace, bracket line first, nothing reworded.
 * The view may fold long runs (a quiet marker, click to show); the engine's elided line is part of
 * the text and shows as a marked band, "not sent to the model".
 */
export function ResultText({ text, elided, unfolded, onToggle }: { text: string; elided?: ElidedMark; unfolded: boolean; onToggle(): void }) {
  const diff = isDiff(text);
  const blocks = resultBlocks(text, elided);
  return (
    <div className="result-text mono">
      {blocks.map((block, i) => (
        <Block key={i} block={block} diff={diff} unfolded={unfolded} onToggle={onToggle} />
      ))}
    </div>
  );
}

function Block({ block, diff, unfolded, onToggle }: { block: ResultBlock; diff: boolean; unfolded: boolean; onToggle(): void }) {
  if (block.kind === 'elided') return <ElidedBand line={block.line} count={block.count} />;
  return (
    <>
      {foldLines(block.lines, unfolded).map((line, i) =>
        line.kind === 'fold' ? (
          <button key={i} type="button" className="fold" onClick={onToggle} data-testid="fold">
            {n(line.count)} lines folded in this view · show
          </button>
        ) : (
          <div key={i} className={`line ${diff ? (diffClass(line.text) ?? '') : ''}`}>
            <Linkified text={line.text} />
          </div>
        ),
      )}
    </>
  );
}

/** `[N lines elided, full output #id]`: in the text the model got, standing for lines it did not. */
export function ElidedBand({ line, count }: { line: string; count: number }) {
  return (
    <div className="elided-band" data-testid="elided-band" title={`${n(count)} lines were left out of what the model got; the full output is stored`}>
      <span className="line">
        <Linkified text={line} />
      </span>
      <span className="elided-label">not sent to the model · stored in full</span>
    </div>
  );
}
