/**
 * An MCP tools/call result as the raw output hygiene takes (spec §1–§4 then apply as to any tool):
 * text content as text; what the model cannot read (images, audio, binary resources) described in
 * one line and kept in full as an attachment; an error result (`isError`) as an error result.
 */
import { fill, mcpConfig } from '../core/config.js';
import type { Attachment, RawOutput } from '../core/tools/types.js';

const t = mcpConfig.texts;

/** The content blocks of a result, loosely typed: a server may send kinds newer than this client. */
type Block = { type: string; [key: string]: unknown };

export interface CallResult {
  content?: Block[];
  structuredContent?: unknown;
  isError?: boolean;
}

export function toRawOutput(name: string, result: CallResult): RawOutput {
  const attachments: Attachment[] = [];
  const parts = (result.content ?? []).map((block) => describe(block, attachments));
  // A result with structured content only (servers should also send it as text) shows that JSON.
  if (parts.length === 0 && result.structuredContent !== undefined) parts.push(JSON.stringify(result.structuredContent, null, 2));
  const body = parts.length === 0 ? t.empty : parts.join('\n');
  if (result.isError) return { kind: 'error', message: fill(t.tool_error, { name, text: body }) };
  return attachments.length > 0 ? { kind: 'text', body, attachments } : { kind: 'text', body };
}

function describe(block: Block, attachments: Attachment[]): string {
  const str = (v: unknown) => (typeof v === 'string' ? v : '');
  switch (block.type) {
    case 'text':
      return str(block.text);
    case 'image':
    case 'audio': {
      const data = Buffer.from(str(block.data), 'base64');
      attachments.push({ mimeType: str(block.mimeType), data });
      return fill(t.image, { kind: block.type, mimeType: str(block.mimeType), bytes: data.length });
    }
    case 'resource': {
      const r = (block.resource ?? {}) as Record<string, unknown>;
      const uri = str(r.uri);
      const mimeType = r.mimeType ? ` ${str(r.mimeType)}` : '';
      if (typeof r.text === 'string') return fill(t.resource_text, { uri, mimeType, text: r.text });
      const data = Buffer.from(str(r.blob), 'base64');
      attachments.push({ mimeType: str(r.mimeType) || 'application/octet-stream', data, uri });
      return fill(t.resource_blob, { uri, mimeType, bytes: data.length });
    }
    case 'resource_link':
      return fill(t.resource_link, { uri: str(block.uri), name: block.name ? ` (${str(block.name)})` : '' });
    default:
      attachments.push({ mimeType: 'application/json', data: Buffer.from(JSON.stringify(block)) });
      return fill(t.other, { type: String(block.type) });
  }
}
