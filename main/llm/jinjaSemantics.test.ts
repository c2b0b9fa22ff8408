import { Template } from '@huggingface/jinja';
import { describe, expect, it } from 'vitest';

// scripts/patchPackages.mjs (postinstall) brings @huggingface/jinja to Python Jinja2's semantics where chat
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

  it('takes number and boolean keys in a dict literal as Python does (Seed-OSS: thinking budgets by token count)', () => {
    const budgets = '{%- set b = {0: "none", 512: "short", 16384: "long"} -%}';
    expect(render(`${budgets}{{ b[512] }} {{ b[16384] }} [{{ b[7] }}] {{ 512 in b }} {{ 7 in b }} {{ "512" in b }}`)).toBe('short long [] true false false');
    expect(render(`${budgets}{% for k, v in b|dictsort %}{{ k + 1 }}={{ v }};{% endfor %}`)).toBe('1=none;513=short;16385=long;');
    expect(render(`${budgets}{% for k in b %}{{ k * 2 }};{% endfor %}{% for k, v in b.items() %}{{ k is number }}{% endfor %}`)).toBe('0;1024;32768;truetruetrue');
    expect(render('{{ {1: "a", 2.5: "b", "c": 2}|tojson }}')).toBe('{"1": "a", "2.5": "b", "c": 2}');
    expect(() => render('{{ {[1]: "a"} }}')).toThrow(/Object keys must be strings, numbers or booleans/);
  });

  it("formats a string with str.format's {}, {0} and {name} fields (Hunyuan: '<｜hy_User{}｜>'.format(HYTK))", () => {
    expect(render("{{ '<a{}b{}>'.format(1, 'x') }}|{{ '{0}-{0}-{n}'.format(3, n='k') }}|{{ '{{}}{}'.format(2) }}")).toBe('<a1bx>|3-3-k|{}2');
    expect(() => render("{{ '{:>3}'.format(2) }}")).toThrow(/only \{\}, \{0\} and \{name\} fields/);
    expect(() => render("{{ '{}{}'.format(1) }}")).toThrow(/no argument for \{\}/);
  });

  it("joins undefined or none to a string as \"\", as llama.cpp's engine does (FireFunction v2: suffix + functions)", () => {
    expect(render("{{ 'a' + x }}|{{ x + 'b' }}|{{ 'c' ~ none }}|{{ 'd' + none + 'e' }}")).toBe('a|b|c|de');
    // Only beside a string: arithmetic on undefined still fails, as in both engines.
    expect(() => render('{{ 1 + x }}')).toThrow(/on undefined values/);
  });

  it('repeats a string times an integer (Functionary: indentation by depth)', () => {
    expect(render('[{{ "ab" * 3 }}][{{ 2 * "x" }}][{{ "y" * 0 }}][{{ "z" * -1 }}]')).toBe('[ababab][xx][][]');
  });
});

describe('@huggingface/jinja as patched: value types on the class (speed)', () => {
  it('still names each value’s type, as errors and tests read it', () => {
    expect(() => render('{% for a, b in [1] %}{% endfor %}')).toThrow('Cannot unpack non-iterable type: IntegerValue');
    expect(() => render('{{ {"a": 1}|upper }}')).toThrow('Unknown ObjectValue filter: upper');
    expect(() => render('{{ none|upper }}')).toThrow('Cannot apply filter "upper" to type: NullValue');
    expect(render('{{ x is string }} {{ [1]|first is number }} {{ none is none }} {{ (1, 2) is iterable }}', { x: 's' })).toBe('true true true true');
    expect(render('{% set ns = namespace(n=1) %}{% for i in [1, 2] %}{% set ns.n = ns.n * 2 %}{% endfor %}{{ ns.n }} {{ "ab"|upper }} {{ {"k": [1, 2]}|tojson }}')).toBe('4 AB {"k": [1, 2]}');
  });

  it('still filters a for loop by its test, each item tested in its own scope, loop.* counting the items kept', () => {
    const source = '{% for m in ms if m.role != "tool" %}{{ loop.index }}/{{ loop.length }}:{{ m.role }}{{ "." if loop.last }} {% endfor %}[{{ m }}]';
    expect(render(source, { ms: [{ role: 'user' }, { role: 'tool' }, { role: 'assistant' }] })).toBe('1/2:user 2/2:assistant. []');
    expect(render('{% for a, b in [(1, 2), (3, 4)] if b > 2 %}{{ a }}{% endfor %}')).toBe('3');
  });
});
