import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { Template } from '@huggingface/jinja';
import { describe, expect, it } from 'vitest';

// scripts/patchJinja.mjs (postinstall) brings @huggingface/jinja to Python Jinja2's semantics where chat
// templates depend on it. Each expected output is what Python's Jinja2 (3.1) renders for the same template.
const render = (source: string, context: Record<string, unknown> = {}) => new Template(source).render(context);

describe('@huggingface/jinja as patched: Python Jinja2 semantics', () => {
  it('unpacks tuples in a for loop as it unpacks lists', () => {
    expect(render('{% for a, b in [("x", 1), ("y", 2)] %}{{ a }}={{ b }};{% endfor %}')).toBe('x=1;y=2;');
    expect(render('{% for a, b in [["x", 1], ("y", 2)] %}{{ a }}{{ b }}{% endfor %}')).toBe('x1y2');
    expect(() => render('{% for a, b in [("x", 1, 2)] %}{% endfor %}')).toThrow(/Too many items to unpack/);
  });

  it('gives Undefined for a subscript whose key is not a string (Hermes 3: basic_type_map[json_spec.type] on |items)', () => {
    expect(render('{% set m = {"a": 1} %}[{{ m[x] }}][{{ m[none] }}][{{ m[1] }}][{{ [1, 2][x] }}][{{ (5)[x] }}]')).toBe('[][][][][]');
    expect(render('{% set m = {"a": 1} %}{{ "yes" if m[x] is defined else "no" }} {{ m["a"] }} {{ [7, 8][1] }}')).toBe('no 1 8');
    // Hermes 3's json_to_python_type on an array schema: `json_spec|items` gives pairs, whose `.type` is Undefined.
    const hermes = '{%- macro t(s) %}{%- set m = {"string": "str"} %}{%- if m[s.type] is defined %}{{- m[s.type] }}'
      + '{%- elif s.type == "array" %}{{- "list[" + t(s|items) + "]" }}{%- elif s.type is iterable %}{{- "Union[" }}'
      + '{%- for x in s.type %}{{- t({"type": x}) }}{%- endfor %}{{- "]" }}{%- else %}{{- "Any" }}{%- endif %}{%- endmacro %}{{ t(p) }}';
    expect(render(hermes, { p: { type: 'array', items: { type: 'string' } } })).toBe('list[Union[]]');
  });

  it('iterates Undefined as empty, and tests iterable as Python does', () => {
    expect(render('{% for t in x %}{{ t }}{% else %}none{% endfor %}')).toBe('none');
    const iterable = '{% for v in [x, (1, 2), {"a": 1}, "s", 3, none] %}{{ "y" if v is iterable else "n" }}{% endfor %}';
    expect(render(iterable)).toBe('yyyynn');
  });

  it('reads Undefined as "" in the string filters (Hermes 3: param_fields.description|trim)', () => {
    expect(render('[{{ x|trim }}][{{ x|upper }}][{{ x|string }}][{{ x|length }}][{{ "a" + x|trim }}]')).toBe('[][][][0][a]');
  });

  it("finds a dict's methods before a key of the same name on dot access, keys on subscript (Functionary: properties.items())", () => {
    const properties = { items: { type: 'array' }, get: 'g' };
    expect(render('{% for k, v in p.items() %}{{ k }};{% endfor %}{{ p.keys()|length }}', { p: properties })).toBe('items;get;2');
    expect(render('{{ p["items"].type }} {{ p["get"] }} {{ p.get("get") }}', { p: properties })).toBe('array g g');
  });

  it('repeats a string times an integer (Functionary: indentation by depth)', () => {
    expect(render('[{{ "ab" * 3 }}][{{ 2 * "x" }}][{{ "y" * 0 }}][{{ "z" * -1 }}]')).toBe('[ababab][xx][][]');
  });
});

describe('scripts/patchJinja.mjs', () => {
  const script = path.resolve('scripts/patchJinja.mjs');
  const dist = path.dirname(createRequire(import.meta.url).resolve('@huggingface/jinja'));
  const copy = () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'keel-jinja-'));
    for (const file of ['index.js', 'index.cjs']) fs.copyFileSync(path.join(dist, file), path.join(dir, file));
    return dir;
  };

  it('is a no-op on the patched library', () => {
    const dir = copy();
    const before = fs.readFileSync(path.join(dir, 'index.cjs'), 'utf8');
    expect(execFileSync('node', [script, dir], { encoding: 'utf8' })).toMatch(/index\.cjs: 0 applied, \d+ already in place/);
    expect(fs.readFileSync(path.join(dir, 'index.cjs'), 'utf8')).toBe(before);
  });

  it('fails loudly, naming the patch, where an anchor is missing, and writes nothing to that file', () => {
    const dir = copy();
    const file = path.join(dir, 'index.js');
    const changed = fs.readFileSync(file, 'utf8').replace('if (!(current instanceof ArrayValue)) {', 'if (!isIterable(current)) {');
    fs.writeFileSync(file, changed);
    let stderr = '';
    try {
      execFileSync('node', [script, dir], { encoding: 'utf8', stdio: 'pipe' });
    } catch (err) {
      stderr = (err as { stderr: string }).stderr;
    }
    expect(stderr).toMatch(/patchJinja: FAILED.*\n.*\n {2}index\.js: patch "for-loop tuple unpacking": anchor found 0 times/);
    expect(fs.readFileSync(file, 'utf8')).toBe(changed);
  });
});
