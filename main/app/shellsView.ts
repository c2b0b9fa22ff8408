/**
 * What the app shows of a session's background shells (issue 33): each with its status line, one's
 * output as the person sees it, and the person's Stop. All through Shells (core/tools/shells.ts):
 * the same status text as bash_output, the same kill and answer as kill_shell.
 */
import type { ShellOutputView, ShellSummary } from '../contract.js';
import { toolConfig } from '../core/config.js';
import { describeKill, describeShell, type Shells, type ShellView } from '../core/tools/shells.js';

/** Why a shell the person stopped was stopped: its status line says so to the model too. */
export const STOPPED_BY_PERSON = 'the person stopped it';

function summary(view: ShellView): ShellSummary {
  const { sessionId: _sessionId, ...rest } = view;
  return { ...rest, status: describeShell(view) };
}

/** The session's shells, oldest first; none where this host keeps no shells. */
export function shellsView(shells: Shells | undefined, sessionId: number): ShellSummary[] {
  return shells?.list(sessionId).map(summary) ?? [];
}

/** The newest part of a shell's output (loop.json tools.shells.shown_bytes); bash_output's next read is unchanged. */
export function shellOutputView(shells: Shells | undefined, sessionId: number, id: string): ShellOutputView {
  const { text, dropped, shell } = need(shells).output(sessionId, id, toolConfig.shells.shown_bytes);
  return { shell: summary(shell), text, dropped };
}

/** Stops a shell as kill_shell does; kill_shell's answer (stopped, killed after the grace period, had ended). */
export async function stopShell(shells: Shells | undefined, sessionId: number, id: string): Promise<string> {
  return describeKill(await need(shells).forSession(sessionId).kill(id, STOPPED_BY_PERSON));
}

function need(shells: Shells | undefined): Shells {
  if (!shells) throw new Error('Background commands cannot run here, so there are none.');
  return shells;
}
