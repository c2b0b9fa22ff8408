import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { builtinSpecs } from '../state/toolList.js';
import { DEFAULT_PROMPTS_DIR } from '../prompts/buildSystemPrompt.js';
import { ToolRegistry } from './registry.js';

/**
 * The built-in tools' parameter schemas as the model sees them, byte for byte. They are part of
 * every request's prefix (the tool list follows the system prompt), and a session stored before
 * lists were kept builds its list from the registry when it is opened: a schema that changes by a
 * single byte (a key's order, an added `additionalProperties`) would break that session's KV cache.
 * The fixture was captured from the hand-written schemas before they were declared with zod.
 */
const FIXTURE = path.join(import.meta.dirname, 'fixtures', 'parameters.json');

const current = () => new ToolRegistry().names().map((name) => ({ name, parameters: new ToolRegistry().get(name)!.parameters }));

describe('the built-in tools\' parameters', () => {
  it('are the exact bytes of the fixture, tool by tool and key by key', () => {
    // JSON.stringify keeps key order, so equal text means equal bytes in every prompt that embeds them.
    expect(JSON.stringify(current(), null, 2) + '\n').toBe(fs.readFileSync(FIXTURE, 'utf8'));
  });

  it('reach the session\'s tool list unchanged', () => {
    // With skills, so the list has every built-in (skill is left out where a workspace has none).
    const specs = builtinSpecs(DEFAULT_PROMPTS_DIR, new ToolRegistry(), { skills: true });
    const fixture = JSON.parse(fs.readFileSync(FIXTURE, 'utf8')) as { name: string; parameters: object }[];
    expect(specs.map((s) => JSON.stringify({ name: s.name, parameters: s.parameters }))).toEqual(fixture.map((f) => JSON.stringify(f)));
  });
});
