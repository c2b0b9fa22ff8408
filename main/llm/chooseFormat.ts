import { HarmonyChatWrapper, type ChatWrapper } from 'node-llama-cpp';
import { harmonyFormat } from './harmony.js';
import type { ReplyFormat } from './replyFormat.js';
import { thoughtMarkers } from './thoughts.js';
import { plainFormat, type CallSyntax } from './toolCalls.js';

/** The reply format of a wrapper: gpt-oss's Harmony channels, else words then calls in its syntax. */
export function replyFormat(wrapper: ChatWrapper, syntax: CallSyntax): ReplyFormat {
  return wrapper instanceof HarmonyChatWrapper ? harmonyFormat : plainFormat(syntax, thoughtMarkers(wrapper));
}
