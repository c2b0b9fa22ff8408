import type { ApprovalRequest } from '../../core/permissions/approval.js';

/** What the person is asked to approve, as the terminal shows it: the tool, why it asks, the command or the paths and diff. */
export function describeApproval(r: ApprovalRequest): string {
  const target = r.command !== undefined ? `$ ${r.command}` : r.paths.join('\n');
  return `── ${r.tool} needs your approval (${r.reason})\n${target}${r.command === undefined && r.preview ? `\n${r.preview}` : ''}`;
}
