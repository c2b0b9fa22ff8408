import { PriceLine } from './PriceLine.js';
import { PriceQuestion } from './PriceQuestion.js';
import type { PricedAction } from './usePricedAction.js';

/**
 * The foot of a confirmation that may break the cache (undo, delete, edit, rewind): what it would
 * re-read, then its button and Cancel, or, above the person's limit, the question asked once more.
 */
export function PricedConfirm({ priced, label, danger = true, disabled = false, autoFocus = false, onConfirm, onCancel, testId }: {
  priced: PricedAction;
  label: string;
  danger?: boolean;
  disabled?: boolean;
  autoFocus?: boolean;
  onConfirm(): void;
  onCancel(): void;
  /** The buttons' test ids: `${testId}-confirm-button` and `${testId}-cancel`. */
  testId: string;
}) {
  return (
    <>
      <PriceLine priced={priced} />
      {priced.question ? (
        <PriceQuestion question={priced.question} />
      ) : (
        <div className="history-confirm-buttons">
          <button
            type="button"
            className={danger ? 'danger small' : 'primary small'}
            disabled={disabled}
            autoFocus={autoFocus}
            onClick={onConfirm}
            data-testid={`${testId}-confirm-button`}
          >
            {label}
          </button>
          <button type="button" className="small" onClick={onCancel} data-testid={`${testId}-cancel`}>
            Cancel
          </button>
        </div>
      )}
    </>
  );
}
