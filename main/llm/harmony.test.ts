import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { engineFixture, type EngineFixture } from '../engineFixture.js';
import { harmonyFormat } from './harmony.js';
import { templateModelOptions } from './testModel/templates.js';

// Replies as gpt-oss writes them after the prompt's `<|start|>assistant` (OpenAI's Harmony format).
const thinking = '<|channel|>analysis<|message|>Need the file.<|end|>';
const preamble = '<|start|>assistant<|channel|>commentary<|message|>Reading a.txt.<|end|>';
const readCall = '<|start|>assistant<|channel|>commentary to=functions.read <|constrain|>json<|message|>{"path":"a.txt"}<|call|>';
const answer = '<|channel|>analysis<|message|>It has two lines.<|end|><|start|>assistant<|channel|>final<|message|>It says alpha and beta.';

describe('reading a Harmony reply', () => {
  it('finds the call, the words a person reads, and the exact text before the call', () => {
    const r = harmonyFormat.read(thinking + preamble + readCall);
    expect(r.words).toBe('Reading a.txt.');
    expect(r.raw).toBe(thinking + preamble);
    expect(r.calls.map((c) => [c.name, c.args, c.raw])).toEqual([['read', { path: 'a.txt' }, readCall]]);
    expect(r.complete).toBe(true);
  });

  it('reads a call that starts the reply, with the recipient before the channel, as the template writes it', () => {
    const text = ' to=functions.grep<|channel|>commentary json<|message|>{"pattern":"x"}<|call|>';
    const r = harmonyFormat.read(text);
    expect(r.calls.map((c) => [c.name, c.args, c.raw])).toEqual([['grep', { pattern: 'x' }, `<|start|>assistant${text}`]]);
    expect(r.words).toBe('');
  });

  it('waits for a call to be written, and answers malformed arguments with a problem', () => {
    expect(harmonyFormat.read(thinking + readCall.slice(0, -10)).complete).toBe(false);
    const bad = harmonyFormat.read('<|channel|>commentary to=functions.read <|constrain|>json<|message|>{path: 1}<|call|>').calls[0];
    expect(bad.problem).toMatch(/^the arguments of read are not valid JSON/);
  });

  it('shows only the final and commentary words while generating, never analysis or a call', () => {
    expect(harmonyFormat.visible(thinking, false)).toBe('');
    expect(harmonyFormat.visible(`${thinking}<|start|>assistant<|channel|>final<|message|>It sa`, false)).toBe('It sa');
    expect(harmonyFormat.visible(thinking + preamble + readCall, false)).toBe('Reading a.txt.');
    // The words are settled once a message to a recipient (a call) has begun, not before.
    expect(harmonyFormat.wordsSettled(thinking + preamble)).toBe(false);
    expect(harmonyFormat.wordsSettled(thinking + preamble + readCall.slice(0, 60))).toBe(true);
    expect(harmonyFormat.read(answer)).toMatchObject({ words: 'It says alpha and beta.', raw: answer, calls: [] });
  });

  it('gives a stored reply back as reasoning, commentary and words, for the template to render', () => {
    expect(harmonyFormat.items({ text: 'Reading a.txt.', raw: thinking + preamble })).toEqual([
      { type: 'segment', segmentType: 'thought', text: 'Need the file.', ended: true },
      { type: 'segment', segmentType: 'comment', text: 'Reading a.txt.', ended: true },
    ]);
    expect(harmonyFormat.items({ text: 'Plain.' })).toEqual(['Plain.']);
  });
});

let f: EngineFixture | undefined;
afterEach(async () => {
  await f?.dispose();
  f = undefined;
});

describe('a gpt-oss session on a model with its template', { timeout: 120_000 }, () => {
  it('runs a call written after reasoning and a preamble, and loses only the analysis the template drops', async () => {
    f = await engineFixture({ model: templateModelOptions('gpt-oss'), files: { 'a.txt': 'alpha\nbeta\n' } });
    f.replies.push(thinking + preamble + readCall, answer);
    expect(await f.agent.send('What is in a.txt?')).toBe('It says alpha and beta.');
    const tool = f.events.find((e) => e.type === 'tool');
    expect(tool?.type === 'tool' && tool.result.text).toMatch(/^\[#0001 a\.txt lines 1-2 of 2 sha [0-9a-f]{8}\]\n1: alpha\n2: beta/);
    const streamed = f.events.flatMap((e) => (e.type === 'text' ? [e.delta] : [])).join('');
    expect(streamed).toBe('Reading a.txt.It says alpha and beta.');
    // Within the turn, the reasoning stays and the result follows the call as generated: all reused.
    let rows = f.agent.requests();
    expect(rows[1].reusedTokens).toBe(rows[1].cachedBefore);

    f.replies.push('<|channel|>commentary to=functions.edit <|constrain|>json<|message|>{"path":"a.txt","old_string":"beta","new_string":"gamma"}<|call|>',
      '<|channel|>final<|message|>Changed.');
    expect(await f.agent.send('Change beta to gamma.')).toBe('Changed.');
    expect(fs.readFileSync(path.join(f.root, 'a.txt'), 'utf8')).toBe('alpha\ngamma\n');
    rows = f.agent.requests();
    // The new turn's first request: the template dropped the earlier analysis (spec §8), and only that is lost.
    expect(rows[2].cause).toBe('template re-rendered earlier text');
    expect(rows.filter((r) => r.cause !== undefined).length).toBe(1);
    const prompt = f.agent.promptText();
    expect(prompt).not.toContain('Need the file.');
    expect(prompt).toContain(`<|start|>assistant<|channel|>commentary<|message|>Reading a.txt.<|end|>${readCall}`);
    expect(prompt).toContain('<|start|>assistant<|channel|>final<|message|>It says alpha and beta.<|end|>');
  });
});
