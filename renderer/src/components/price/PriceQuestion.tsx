import { useId, type KeyboardEvent } from 'react';
import { priceQuestion } from '../../lib/priceText.js';
import type { PriceQuestionState } from './usePricedAction.js';

/**
 * The question before an action whose cache break is above the person's limit (settings.json
 * `askAboveSeconds`): Go on (focused; Enter) or Cancel (Escape), which changes nothing.
 */
export function PriceQuestion({ question, className = '' }: { question: PriceQuestionState; className?: string }) {
  const textId = useId();
  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    if (e.key === 'Escape') {
      // Escape here answers the question (the window's Escape stops the model).
      e.stopPropagation();
      question.cancel();
    }
    if (e.key === 'Enter' && !(e.target instanceof HTMLButtonElement && e.target.dataset.testid === 'price-ask-cancel')) {
      e.preventDefault();
      e.stopPropagation();
      question.confirm();
    }
  };
  return (
    <div className={`price-ask ${className}`} role="alertdialog" aria-label="Above your cache-break limit" aria-describedby={textId} onKeyDown={onKeyDown} data-testid="price-ask">
      <p id={textId} data-testid="price-ask-text">{priceQuestion(question.got, question.limit)}</p>
      <div className="history-confirm-buttons">
        <button type="button" className="danger small" autoFocus onClick={question.confirm} data-testid="price-ask-go">
          Go on
        </button>
        <button type="button" className="small" onClick={question.cancel} data-testid="price-ask-cancel">
          Cancel
        </button>
      </div>
    </div>
  );
}
