/** Small line icons for the top bar's actions (plain SVG: no font, no stylesheet of its own). */
const PATHS = {
  // Stacked lines pressed into one: the history replaced by a summary.
  compact: 'M3 3h10M3 6h10M5.5 9.5 8 12l2.5-2.5M3 14h10',
  undo: 'M5.5 4 2.5 7l3 3M2.5 7H10a3.5 3.5 0 0 1 0 7H7',
  regenerate: 'M13 8a5 5 0 1 1-1.5-3.6M13 2.5v3.5H9.5',
  stop: 'M4.5 4.5h7v7h-7z',
  // A panel on the right: the Recall inspector.
  recall: 'M2.5 3.5h11v9h-11zM9.5 3.5v9',
} as const;

export type IconName = keyof typeof PATHS;

export function Icon({ name }: { name: IconName }) {
  return (
    <svg className="icon" width={14} height={14} viewBox="0 0 16 16" aria-hidden="true" focusable="false">
      <path d={PATHS[name]} fill="none" stroke="currentColor" strokeWidth={1.5} strokeLinecap="round" strokeLinejoin="round" />
    </svg>
  );
}
