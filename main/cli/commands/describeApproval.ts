import type { ApprovalRequest } from '../../core/permissions/approval.js';
import { visibleText } from '../../core/permissions/visible.js';

/**
 * What the person is asked to approve, as the terminal shows it: the tool, why it asks, the command
 * or the paths and diff. Every part passes through visibleText, so no control, escape or bidi
 * character in a command, a path or a diff reaches the terminal raw.
 */
export function describeApproval(r: ApprovalRequest): string {
  const target = r.command !== undefined ? `$ ${r.command}` : r.paths.join('\n');
  return visibleText(`── ${r.tool} needs your approval (${r.reason})\n${target}${r.command === undefined && r.preview ? `\n${r.preview}` : ''}`);
}
