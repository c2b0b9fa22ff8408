import { useEffect } from 'react';
import { useKeel } from './stores/store.js';
import { NARROW_QUERY } from './stores/slices/ui.js';

const isMac = typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.userAgent);
/** The modifier as tooltips name it. */
export const MOD = isMac ? 'Cmd' : 'Ctrl';

/** Whether a key event carries the platform's command modifier. */
export const withMod = (e: { ctrlKey: boolean; metaKey: boolean }) => e.ctrlKey || e.metaKey;

/** A panel's key: Ctrl/Cmd with `key` (lower case) runs `run` (components/panels.ts). */
export interface Shortcut {
  key: string;
  run(): void;
}

/**
 * App-wide keys. Escape closes the Settings panel or the model picker, else denies the open session's waiting approval,
 * else stops the model. Ctrl/Cmd+B shows or hides the sidebar (collapsed by itself in a narrow window).
 * Ctrl/Cmd with a panel's key runs its shortcut (components/panels.ts: I, the Recall inspector with its
 * id field focused; comma, the Settings panel).
 * Enter (send; Ctrl/Cmd+Enter too), Shift+Enter and Up belong to the message box (Composer.tsx).
 */
export function useShortcuts(panels: readonly { shortcut?: Shortcut }[]): void {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') {
        if (useKeel.getState().ui.settingsOpen) {
          useKeel.getState().ui.setSettings(false);
          return;
        }
        if (useKeel.getState().ui.pickerOpen) {
          useKeel.getState().ui.setPicker(false);
          return;
        }
        const sessionId = useKeel.getState().transcript.sessionId;
        const waiting = useKeel.getState().approvals.items.find((a) => a.sessionId === sessionId);
        if (waiting) {
          e.preventDefault();
          void useKeel.getState().approvals.answer(waiting.approvalId, 'deny');
          return;
        }
        if (useKeel.getState().transcript.running) {
          e.preventDefault();
          void useKeel.getState().transcript.stop();
        }
        return;
      }
      if (withMod(e) && !e.shiftKey && !e.altKey && e.key.toLowerCase() === 'b') {
        e.preventDefault();
        useKeel.getState().ui.setSidebar(!useKeel.getState().ui.sidebarOpen);
        return;
      }
      const shortcut = withMod(e) && !e.shiftKey && !e.altKey ? panels.find((p) => p.shortcut?.key === e.key.toLowerCase())?.shortcut : undefined;
      if (shortcut) {
        e.preventDefault();
        shortcut.run();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
}

/** Tells the ui slice whether the window is narrow (NARROW_QUERY), now and at every crossing. */
export function useNarrowWindow(): void {
  useEffect(() => {
    if (typeof window.matchMedia !== 'function') return;
    const query = window.matchMedia(NARROW_QUERY);
    const update = () => useKeel.getState().ui.setNarrow(query.matches);
    update();
    query.addEventListener('change', update);
    return () => query.removeEventListener('change', update);
  }, []);
}
