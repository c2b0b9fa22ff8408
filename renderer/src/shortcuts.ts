import { useEffect } from 'react';
import { useApprovals } from './stores/useApprovals.js';
import { useTranscript } from './stores/useTranscript.js';
import { NARROW_QUERY } from './stores/slices/ui.js';
import { useUi } from './stores/useUi.js';

const isMac = typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.userAgent);
/** The modifier as tooltips name it. */
export const MOD = isMac ? 'Cmd' : 'Ctrl';

/** Whether a key event carries the platform's command modifier. */
export const withMod = (e: { ctrlKey: boolean; metaKey: boolean }) => e.ctrlKey || e.metaKey;

/**
 * App-wide keys. Escape closes the Settings panel or the model picker, else denies the open session's waiting approval,
 * else stops the model. Ctrl/Cmd+I opens the Recall inspector with its id field focused (with a
 * session open). Ctrl/Cmd+, opens and closes the Settings panel. Ctrl/Cmd+B shows or hides the
 * sidebar (collapsed by itself in a narrow window).
 * Enter (send; Ctrl/Cmd+Enter too), Shift+Enter and Up belong to the message box (Composer.tsx).
 */
export function useShortcuts(): void {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') {
        if (useUi.getState().settingsOpen) {
          useUi.getState().setSettings(false);
          return;
        }
        if (useUi.getState().pickerOpen) {
          useUi.getState().setPicker(false);
          return;
        }
        const sessionId = useTranscript.getState().sessionId;
        const waiting = useApprovals.getState().items.find((a) => a.sessionId === sessionId);
        if (waiting) {
          e.preventDefault();
          void useApprovals.getState().answer(waiting.approvalId, 'deny');
          return;
        }
        if (useTranscript.getState().running) {
          e.preventDefault();
          void useTranscript.getState().stop();
        }
        return;
      }
      if (withMod(e) && !e.shiftKey && !e.altKey && e.key === ',') {
        e.preventDefault();
        useUi.getState().setSettings(!useUi.getState().settingsOpen);
        return;
      }
      if (withMod(e) && !e.shiftKey && !e.altKey && e.key.toLowerCase() === 'b') {
        e.preventDefault();
        useUi.getState().setSidebar(!useUi.getState().sidebarOpen);
        return;
      }
      if (withMod(e) && !e.shiftKey && !e.altKey && e.key.toLowerCase() === 'i') {
        e.preventDefault();
        // Like the Recall button: results belong to a session, so without one it does nothing.
        if (useTranscript.getState().sessionId !== undefined) useUi.getState().openInspector(true);
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
    const update = () => useUi.getState().setNarrow(query.matches);
    update();
    query.addEventListener('change', update);
    return () => query.removeEventListener('change', update);
  }, []);
}
