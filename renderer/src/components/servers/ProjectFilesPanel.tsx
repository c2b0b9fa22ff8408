import { useEffect } from 'react';
import { PROJECT_FILE_KINDS, visibleText, type ProjectFileView } from '../../../../main/contract.js';
import { useKeel } from '../../stores/store.js';

const STATE: Record<ProjectFileView['state'], { text: string; tag: string }> = {
  read: { text: 'read', tag: 'ok' },
  approved: { text: 'approved', tag: 'ok' },
  waiting: { text: 'waiting for approval', tag: 'amber' },
  problem: { text: 'not used', tag: 'amber' },
};

/** Where a waiting file is approved: both are on this tab, above the list. */
const APPROVED_AT: Partial<Record<ProjectFileView['kind'], string>> = {
  settings: 'Approve it under Hooks and permission rules above.',
  mcp: 'Approve it with "Approve and start" above.',
};

/** A path inside the workspace as the person writes it there; others (the person's own) whole. */
const shown = (file: string, workspace: string) => visibleText(file.startsWith(`${workspace}/`) ? file.slice(workspace.length + 1) : file);

/**
 * The Servers tab's project files: every file Keel reads for the open session's workspace (its
 * instructions, settings, MCP configuration, commands, skills and subagents), each with its state,
 * read-only. Read again whenever the servers or hooks above change (an approval, an edited file).
 */
export function ProjectFilesPanel() {
  const workspace = useKeel((s) => s.transcript.view?.summary.workspace);
  const servers = useKeel((s) => s.servers.view);
  const hooks = useKeel((s) => s.hooks.view);
  const view = useKeel((s) => (s.projectFiles.workspace === workspace ? s.projectFiles.view : undefined));
  useEffect(() => {
    if (workspace) void useKeel.getState().projectFiles.load(workspace);
  }, [workspace, servers, hooks]);
  if (!view) return null;
  return (
    <div className="hooks-panel" data-testid="project-files">
      <h3>Project files</h3>
      {view.files.length === 0 && (
        <p className="muted small" data-testid="project-files-none">
          Keel found none of AGENTS.md, CLAUDE.md, .claude/, .keel/ or .mcp.json in {view.workspace}.
        </p>
      )}
      <ul className="small">
        {view.files.map((f) => (
          <li key={`${f.kind} ${f.path}`} data-testid="project-file" data-state={f.state}>
            <span className="mono">{shown(f.path, view.workspace)}</span> <span className="muted">{PROJECT_FILE_KINDS[f.kind]}</span>{' '}
            <span className={`tag ${STATE[f.state].tag}`} data-testid="project-file-state">{STATE[f.state].text}</span>
            {f.state === 'waiting' && APPROVED_AT[f.kind] && <span className="muted" data-testid="project-file-approve"> {APPROVED_AT[f.kind]}</span>}
            {f.problem !== undefined && <div className="server-error" data-testid="project-file-problem">{visibleText(f.problem)}</div>}
          </li>
        ))}
      </ul>
    </div>
  );
}
