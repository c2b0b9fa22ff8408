#!/usr/bin/env node
// Runs on `npm install` / `npm ci` (postinstall): patches four pinned dependencies by exact anchors.
//
// @huggingface/jinja 0.5.11: its evaluation brought to Python Jinja2's semantics where chat templates
// written for Python depend on it (docs/decisions.md, "Chat templates"). Each patch is a general rule
// of the engine, never a special case for a family:
//   1. a for loop unpacks tuples as it unpacks lists (`for a, b in [("x", 1)]`; TupleValue extends ArrayValue);
//   2. a subscript whose key is not a string (or, on a list, not an integer) gives Undefined, as
//      Jinja2's getitem does when the lookup fails, instead of throwing (`map[undefined_value]`); and
//      dot access on a dict finds its methods get/items/keys/values before a key of that name, as
//      Jinja2's getattr does (`properties.items()` where a parameter is named "items");
//   3. Undefined iterates as empty in a for loop, as Jinja2's default Undefined does;
//   4. `is iterable` is true for what Python can iterate: lists, tuples, strings, dicts and Undefined;
//   5. the string filters (trim, upper, lower, title, capitalize, string, length) read Undefined as "",
//      as Jinja2 does (`param.description|trim` where a parameter has no description);
//   6. a string times an integer repeats the string, as in Python (`"    " * depth`);
//   6b. a dict literal takes number and boolean keys as Python's does (`{0: "a", 512: "b"}`: Seed-OSS's
//      thinking budgets); subscript, `in`, items/keys/dictsort and tojson treat them as Python does;
//   6c. `str.format` with `{}`, `{0}` and `{name}` fields (Hunyuan: `'<｜hy_User{}｜>'.format(HYTK)`);
//   6d. where llama.cpp's own Jinja engine (common/jinja/runtime.cpp) is more lenient than Python's, as
//      llama.cpp renders: undefined or none joined to a string with `+` or `~` reads as "" (FireFunction v2's
//      `system_prompt_suffix + "\n" + functions`), so a template llama.cpp renders renders in Keel;
//   7. speed, not semantics: a runtime value's `type` is a getter on its class, and `value` and
//      `_builtins` are plain assignments, not class fields. Every value the interpreter makes (several
//      per message per render) otherwise runs field initializers with define semantics, a subclass
//      redefining `type` on each new object: a 1,300-message render took 44 ms, 9.4 ms without (issue 10);
//   8. speed: a for loop makes a scope for each item only when the loop has a test (`for m in ms if …`),
//      the only place that scope is read.
//
// lifecycle-utils 4.5.2 (node-llama-cpp's): speed, not semantics. node-llama-cpp's Jinja wrapper splits
// every rendered prompt at its message ids with `splitText`, which made a search object for each
// character of the prompt and dropped it at once unless a separator begins with that character; now
// it makes one only where one does, and with no search under way it skips to the next character a
// separator begins with. The result is the same: a search whose first step fails is removed in that
// same step, having recorded nothing. A 128k-token prompt rendered in 8.5 ms, 3.5 ms after. Where no
// separator begins another and no two occurrences overlap (node-llama-cpp's ids, but by chance), every
// occurrence is a part, as the search makes it: those are found directly, without the search's
// bookkeeping (a 240-message prompt's split: 0.30 ms, 0.11 ms after).
//
// node-llama-cpp 3.21.1: speed, not semantics, where a cost grew with the history (issue 10):
//   1. each evaluation appended its tokens to the sequence's token list by copying the whole list (at
//      128k tokens, half a megabyte copied per generated token); they are appended in place (the list
//      is the sequence's own: every reader gets a copy);
//   2. the Jinja wrapper's squashing of adjacent messages deep-copied every history item on every
//      render; it copies each item as deep as squashing changes it (the item and its response list);
//   3. each message id the Jinja wrapper made was searched for in the whole text of the prompt; it is
//      compared only where the text has its first character (those places found once per render).
//
// @anthropic-ai/sandbox-runtime 0.0.83: its `whichSync` started `which` (1 s timeout) for bash, bwrap
// and socat before every sandboxed command: on a busy machine the timeout was missed ("Shell 'bash'
// not found in PATH", a command refused) and each start cost up to 0.3 s. PATH is searched in the
// process instead, as `which` does: a name with a slash is itself, else the first PATH entry (an
// empty one is `.`) holding a regular file the user may execute.
// Two options per wrap, each opt-in, each leaving a sandbox no less strict (issue 37 item 4):
//   - `noNetwork`: the command reaches no host at all. On Linux its network namespace is unshared
//     with nothing bound into it: no proxy socket, no socat relays started inside and waited for
//     (about 0.1 s a command), no proxy variables. Without it an empty allow list still routes
//     through the proxy, which refuses every host;
//   - `mandatoryDenyScan: false`: the ripgrep scan of the working directory for shell and tool
//     settings and git hooks to protect is not run (a process started for every command). Its
//     denies only ever land inside the paths a command may write; Keel asks for it only where
//     those hold nothing of the workspace (a read-only command: its own temp folder, which Keel
//     mounts a fresh file system over). The fixed names in the working directory are still denied.
//
// Contract: every file listed gets every patch of its package; a file that already holds a patch's
// replacement is left alone (so a second run is a no-op); an anchor missing from a file that lacks
// the replacement (a new library version) fails the install loudly, naming the package, patch and
// file, and that file is not written.
//
//   node scripts/patchPackages.mjs                 patches the installed packages
//   node scripts/patchPackages.mjs NAME FOLDER     patches package NAME's files in FOLDER (tests patch copies)
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

export const JINJA_PATCHES = [
  {
    name: 'for-loop tuple unpacking',
    anchor: 'if (current.type !== "ArrayValue") {',
    replacement: 'if (!(current instanceof ArrayValue)) {',
  },
  {
    name: 'subscript with a non-string key on a dict gives Undefined; dict methods before keys on dot access',
    anchor: [
      '    if (isAttributeContainer(object)) {',
      '      if (!(property instanceof StringValue)) {',
      '        throw new Error(`Cannot access property with non-string: got ${property.type}`);',
      '      }',
      '      value = object.value.get(property.value) ?? (object instanceof ObjectValue ? object.builtins.get(property.value) : void 0);',
    ].join('\n'),
    replacement: [
      '    if (isAttributeContainer(object)) {',
      '      value = !(property instanceof StringValue) ? (object instanceof ObjectValue && isDictKey(property) ? object.value.get(property.value) : void 0) : (!expr.computed && object instanceof ObjectValue && ["get", "items", "keys", "values"].includes(property.value) ? object.builtins.get(property.value) : void 0) ?? object.value.get(property.value) ?? (object instanceof ObjectValue ? object.builtins.get(property.value) : void 0);',
    ].join('\n'),
  },
  {
    name: 'a dict literal takes number and boolean keys, as a Python dict does',
    anchor: [
      '          if (!(evaluatedKey instanceof StringValue)) {',
      '            throw new Error(`Object keys must be strings: got ${evaluatedKey.type}`);',
    ].join('\n'),
    replacement: [
      '          if (!(evaluatedKey instanceof StringValue || isDictKey(evaluatedKey))) {',
      '            throw new Error(`Object keys must be strings, numbers or booleans: got ${evaluatedKey.type}`);',
    ].join('\n'),
  },
  {
    name: 'which values besides strings key a dict; str.format',
    anchor: 'function convertToRuntimeValues(input) {',
    replacement: [
      'function isDictKey(value) {',
      '  return value instanceof IntegerValue || value instanceof FloatValue || value instanceof BooleanValue;',
      '}',
      'function pythonFormat(format, args) {',
      '  const kwargs = args.at(-1) instanceof KeywordArgumentsValue ? args.at(-1) : void 0;',
      '  const positional = kwargs ? args.slice(0, -1) : args;',
      '  let next = 0;',
      '  return format.replace(/\\{\\{|\\}\\}|\\{([^{}]*)\\}/g, (whole, field) => {',
      '    if (field === void 0) return whole[0];',
      '    if (/[:!]/.test(field)) throw new Error(`format(): only {}, {0} and {name} fields are supported: got {${field}}`);',
      '    const value = field === "" ? positional[next++] : /^\\d+$/.test(field) ? positional[Number(field)] : kwargs?.value.get(field);',
      '    if (value === void 0) throw new Error(`format(): no argument for {${field}}`);',
      '    return value.toString();',
      '  });',
      '}',
      'function convertToRuntimeValues(input) {',
    ].join('\n'),
  },
  {
    name: 'str.format with {}, {0} and {name} fields',
    anchor: [
      '    return this._builtins ??= /* @__PURE__ */ new Map([',
      '      [',
      '        "upper",',
    ].join('\n'),
    replacement: [
      '    return this._builtins ??= /* @__PURE__ */ new Map([',
      '      ["format", new FunctionValue((args) => new StringValue(pythonFormat(this.value, args)))],',
      '      [',
      '        "upper",',
    ].join('\n'),
  },
  {
    name: 'undefined or none joined to a string with + or ~ reads as "", as llama.cpp\'s engine reads it',
    anchor: '    if (left instanceof UndefinedValue || right instanceof UndefinedValue) {\n      if (right instanceof UndefinedValue && ["in", "not in"]',
    replacement: [
      '    const isEmpty = (v) => v instanceof UndefinedValue || v instanceof NullValue;',
      '    if ((node.operator.value === "+" || node.operator.value === "~") && (left instanceof StringValue && isEmpty(right) || isEmpty(left) && right instanceof StringValue)) {',
      '      return new StringValue(left instanceof StringValue ? left.value : right.value);',
      '    }',
      '    if (left instanceof UndefinedValue || right instanceof UndefinedValue) {\n      if (right instanceof UndefinedValue && ["in", "not in"]',
    ].join('\n'),
  },
  ...[
    'Array.from(this.value.entries()).map(([key, value]) => new ArrayValue([new StringValue(key), value])).sort(',
    'Array.from(this.value.entries()).map(([key, value]) => new ArrayValue([new StringValue(key), value]))\n',
    'Array.from(operand.value.entries()).map(([key, value]) => new ArrayValue([new StringValue(key), value]))',
    'return new ArrayValue(Array.from(this.value.keys()).map((key) => new StringValue(key)));',
  ].map((anchor, i) => ({
    name: `a dict's keys come back as the values they were (${['dictsort', 'items()', '|items', 'keys()'][i]})`,
    anchor,
    replacement: anchor.replace('new StringValue(key)', 'convertToRuntimeValues(key)'),
  })),
  {
    name: '`in` finds a number or boolean key in a dict',
    anchor: 'if (left instanceof StringValue && right instanceof ObjectValue) {',
    replacement: 'if ((left instanceof StringValue || isDictKey(left)) && right instanceof ObjectValue) {',
  },
  {
    name: 'tojson writes a number or boolean key as a string, as json.dumps does',
    anchor: 'let keyStr = JSON.stringify(key);',
    replacement: 'let keyStr = JSON.stringify(typeof key === "string" ? key : String(key));',
  },
  {
    name: 'subscript with a non-string, non-integer key on a list or string gives Undefined',
    anchor: [
      '      } else {',
      '        throw new Error(`Cannot access property with non-string/non-number: got ${property.type}`);',
      '      }',
    ].join('\n'),
    replacement: [
      '      } else {',
      '        value = void 0;',
      '      }',
    ].join('\n'),
  },
  {
    name: 'subscript with a non-string key on any other value gives Undefined',
    anchor: [
      '    } else {',
      '      if (!(property instanceof StringValue)) {',
      '        throw new Error(`Cannot access property with non-string: got ${property.type}`);',
      '      }',
      '      value = object.builtins.get(property.value);',
    ].join('\n'),
    replacement: [
      '    } else {',
      '      value = property instanceof StringValue ? object.builtins.get(property.value) : void 0;',
    ].join('\n'),
  },
  {
    name: 'for loop over Undefined iterates nothing',
    anchor: '    if (!(iterable instanceof ArrayValue || iterable instanceof ObjectValue)) {',
    replacement: [
      '    if (iterable instanceof UndefinedValue) iterable = new ArrayValue([]);',
      '    if (!(iterable instanceof ArrayValue || iterable instanceof ObjectValue)) {',
    ].join('\n'),
  },
  {
    name: '`is iterable` as in Python',
    anchor: '["iterable", (operand) => operand.type === "ArrayValue" || operand.type === "StringValue"],',
    replacement:
      '["iterable", (operand) => operand instanceof ArrayValue || operand instanceof StringValue || operand instanceof ObjectValue || operand instanceof UndefinedValue],',
  },
  {
    name: 'string filters read Undefined as ""',
    anchor: [
      '      if (filter.value === "tojson") {',
      '        return new StringValue(toJSON(operand, {}));',
      '      }',
      '      if (operand instanceof ArrayValue) {',
    ].join('\n'),
    replacement: [
      '      if (filter.value === "tojson") {',
      '        return new StringValue(toJSON(operand, {}));',
      '      }',
      '      if (operand instanceof UndefinedValue && ["trim", "upper", "lower", "title", "capitalize", "string", "length"].includes(filter.value)) {',
      '        operand = new StringValue("");',
      '      }',
      '      if (operand instanceof ArrayValue) {',
    ].join('\n'),
  },
  {
    name: 'a string times an integer repeats it',
    anchor: '    throw new SyntaxError(`Unknown operator "${node.operator.value}" between ${left.type} and ${right.type}`);',
    replacement: [
      '    if (node.operator.value === "*" && (left instanceof StringValue && right instanceof IntegerValue || left instanceof IntegerValue && right instanceof StringValue)) {',
      '      return new StringValue(left instanceof StringValue ? left.value.repeat(Math.max(0, right.value)) : right.value.repeat(Math.max(0, left.value)));',
      '    }',
      '    throw new SyntaxError(`Unknown operator "${node.operator.value}" between ${left.type} and ${right.type}`);',
    ].join('\n'),
  },
  {
    name: 'a for loop makes a scope per item only for its test (`for x in xs if …`)',
    anchor: '      const loopScope = new Environment(scope);',
    replacement: '      const loopScope = test ? new Environment(scope) : void 0;',
  },
  ...[
    ['RuntimeValue', '  value;\n'], ['StringValue', '  _builtins;\n'], ['ObjectValue', '  _builtins;\n'], ['ArrayValue', '  _builtins;\n'],
    ...['IntegerValue', 'FloatValue', 'BooleanValue', 'KeywordArgumentsValue', 'NamespaceValue', 'TupleValue', 'FunctionValue', 'NullValue', 'UndefinedValue']
      .map((name) => [name, '']),
  ].map(([name, field]) => ({
    name: `${name}: type on the class, no class fields`,
    anchor: `  type = "${name}";\n${field}`,
    replacement: `  get type() { return "${name}"; }\n`,
  })),
];

/** The statement that starts a search at each character; the patch guards it, indented one level more. */
const START_SEARCH = ['activeChecks.unshift({', '    currentNode: separatorsFindTree,', '    startIndex: i,', '    conflictedBy: []', '});'];
/**
 * The split where no two separators' occurrences overlap and no separator begins another (node-llama-cpp's
 * message ids, always but by chance): there, every occurrence is a part, as the general search makes
 * it, found without its per-search bookkeeping. Undefined anywhere else: the general search decides.
 */
const SPLIT_WITHOUT_OVERLAPS = `function splitTextWithoutOverlaps(text, separators) {
    // Separators by their first two characters (one, for a one-character separator): one begins
    // another only within its group, or as a one-character separator another starts with.
    const firstChars = new Uint8Array(65536);
    const byStart = new Map();
    for (const separator of separators) {
        if (separator === "")
            return undefined;
        const first = separator.charCodeAt(0);
        if (firstChars[first] === 2 || (firstChars[first] === 1 && separator.length === 1))
            return undefined;
        firstChars[first] = separator.length === 1 ? 2 : 1;
        if (separator.length === 1)
            continue;
        const key = first * 65536 + separator.charCodeAt(1);
        const group = byStart.get(key);
        if (group == null)
            byStart.set(key, [separator]);
        else {
            for (const other of group)
                if (other.startsWith(separator) || separator.startsWith(other))
                    return undefined;
            group.push(separator);
        }
    }
    const res = [];
    let lastEndIndex = 0;
    for (let i = 0; i < text.length; i++) {
        const first = text.charCodeAt(i);
        if (firstChars[first] === 0)
            continue;
        let found;
        if (firstChars[first] === 2)
            found = text[i];
        else if (i + 1 < text.length) {
            const group = byStart.get(first * 65536 + text.charCodeAt(i + 1));
            if (group !== undefined)
                for (let k = 0; k < group.length && found === undefined; k++)
                    if (text.startsWith(group[k], i))
                        found = group[k];
        }
        if (found === undefined)
            continue;
        if (i < lastEndIndex)
            return undefined;
        if (lastEndIndex < i)
            res.push(text.slice(lastEndIndex, i));
        res.push(Separator._create(found));
        lastEndIndex = i + found.length;
    }
    if (lastEndIndex < text.length)
        res.push(text.slice(lastEndIndex));
    if (res.length === 0 && text.length === 0)
        res.push("");
    return res;
}
`;

export const SPLIT_TEXT_PATCHES = [
  {
    name: 'where no occurrences overlap and no separator begins another, every occurrence is a part, found directly',
    anchor: ['    if (separators.length === 0)', '        return [text];', '    const separatorsFindTree = separatorsToFindTree(separators);'].join('\n'),
    replacement: [
      '    if (separators.length === 0)',
      '        return [text];',
      '    const withoutOverlaps = splitTextWithoutOverlaps(text, separators);',
      '    if (withoutOverlaps != null)',
      '        return withoutOverlaps;',
      '    const separatorsFindTree = separatorsToFindTree(separators);',
    ].join('\n'),
  },
  {
    name: 'the split without overlaps, defined',
    anchor: 'function separatorsToFindTree(separators) {',
    replacement: `${SPLIT_WITHOUT_OVERLAPS}function separatorsToFindTree(separators) {`,
  },
  {
    name: 'a search starts only where a separator can begin',
    anchor: START_SEARCH.map((line) => `        ${line}`).join('\n'),
    replacement: ['        if (separatorsFindTree.next.has(char))', ...START_SEARCH.map((line) => `            ${line}`)].join('\n'),
  },
  {
    name: 'with no search under way, the text up to where a separator can begin is skipped by a table of first characters',
    anchor: ['    for (let i = 0; i < text.length; i++) {', '        const char = text[i];'].join('\n'),
    replacement: [
      '    const separatorStarts = new Uint8Array(65536);',
      '    for (const char of separatorsFindTree.next.keys())',
      '        separatorStarts[char.charCodeAt(0)] = 1;',
      '    for (let i = 0; i < text.length; i++) {',
      '        if (activeChecks.length === 0) {',
      '            while (i < text.length && separatorStarts[text.charCodeAt(i)] === 0)',
      '                i++;',
      '            if (i === text.length)',
      '                break;',
      '        }',
      '        const char = text[i];',
    ].join('\n'),
  },
];

/** node-llama-cpp 3.21.1: speed, not semantics (see the header). */
export const DECODE_PATCHES = [
  {
    name: 'evaluated tokens appended to the sequence in place',
    anchor: '            this._contextTokens = this._contextTokens.concat(tokensToDecode);',
    replacement: ['            for (const token of tokensToDecode)', '                this._contextTokens.push(token);'].join('\n'),
  },
];
export const SQUASH_PATCHES = [
  ['        if (lastItem == null) {\n', '            res.push('],
  ['        else\n', '            res.push('],
].map(([before, push]) => ({
  name: `a history item copied as deep as squashing changes it (${before.trim() === 'else' ? 'one of several' : 'the first'})`,
  anchor: `${before}${push}structuredClone(item));`,
  replacement: `${before}${push}item.type === "model" ? { ...item, response: item.response.slice() } : { ...item });`,
}));

export const UNIQUE_ID_PATCHES = [
  {
    name: 'an id is looked for in the text only where its first character is',
    anchor: '        } while (this._ids.has(id) || this.antiText.includes(id));',
    replacement: '        } while (this._ids.has(id) || this._appearsInAntiText(id));',
  },
  {
    name: 'where each first character is, found once',
    anchor: '    removeId(id) {',
    replacement: [
      '    _appearsInAntiText(id) {',
      '        this._positions ??= new Map();',
      '        let positions = this._positions.get(id[0]);',
      '        if (positions == null) {',
      '            positions = [];',
      '            for (let at = this.antiText.indexOf(id[0]); at >= 0; at = this.antiText.indexOf(id[0], at + 1))',
      '                positions.push(at);',
      '            this._positions.set(id[0], positions);',
      '        }',
      '        for (const at of positions)',
      '            if (this.antiText.startsWith(id, at))',
      '                return true;',
      '        return false;',
      '    }',
      '    removeId(id) {',
    ].join('\n'),
  },
];

export const WHICH_PATCHES = [
  {
    name: 'fs for an in-process which',
    anchor: "import { spawnSync } from 'node:child_process';",
    replacement: "import { spawnSync } from 'node:child_process';\nimport { accessSync, statSync, constants as fsConstants } from 'node:fs';",
  },
  {
    name: 'which without a process',
    anchor: [
      '    // Fallback to Node.js implementation',
      "    const result = spawnSync('which', [bin], {",
      "        encoding: 'utf8',",
      "        stdio: ['ignore', 'pipe', 'ignore'],",
      '        timeout: 1000,',
      '    });',
      '    if (result.status === 0 && result.stdout) {',
      '        return result.stdout.trim();',
      '    }',
      '    return null;',
    ].join('\n'),
    replacement: [
      '    // Keel: PATH searched here, as `which` does, with no process to start or time out.',
      '    const isProgram = (file) => {',
      '        try {',
      '            if (!statSync(file).isFile()) return false;',
      '            accessSync(file, fsConstants.X_OK);',
      '            return true;',
      '        }',
      '        catch {',
      '            return false;',
      '        }',
      '    };',
      "    if (bin.includes('/')) return isProgram(bin) ? bin : null;",
      "    for (const dir of (process.env.PATH ?? '').split(':')) {",
      "        const file = `${dir === '' ? '.' : dir}/${bin}`;",
      '        if (isProgram(file)) return file;',
      '    }',
      '    return null;',
    ].join('\n'),
  },
];

export const WRAP_OPTION_PATCHES = [
  {
    name: 'noNetwork: no proxy, the network still unshared',
    anchor: '    const needsNetworkProxy = hasNetworkConfig;',
    replacement: [
      '    // Keel: a wrap that may reach no host gets no way to the proxy either (needsNetworkRestriction stands).',
      '    const needsNetworkProxy = hasNetworkConfig && options?.noNetwork !== true;',
    ].join('\n'),
  },
  {
    name: 'mandatoryDenyScan: false skips the ripgrep scan (a depth below 0)',
    anchor: '                mandatoryDenySearchDepth: getMandatoryDenySearchDepth(),',
    replacement: '                mandatoryDenySearchDepth: options?.mandatoryDenyScan === false ? -1 : getMandatoryDenySearchDepth(),',
  },
];

export const WRAP_OPTION_TYPE_PATCHES = [
  {
    name: 'the two options, typed',
    anchor: [
      "     * reported as the violation's `command`. Defaults to `command`.",
      '     */',
      '    commandText?: string;',
      '};',
    ].join('\n'),
    replacement: [
      "     * reported as the violation's `command`. Defaults to `command`.",
      '     */',
      '    commandText?: string;',
      '    /**',
      '     * Keel: the command reaches no host at all. Its network is restricted as ever (Linux: its own',
      '     * namespace), with no way to the proxy: no bridge bound in, no relays, no proxy variables.',
      '     */',
      '    noNetwork?: boolean;',
      '    /**',
      '     * Keel: false skips the scan of the working directory for protected names below it (Linux:',
      '     * ripgrep). Only where the paths the command may write hold nothing of the working directory.',
      '     */',
      '    mandatoryDenyScan?: boolean;',
      '};',
    ].join('\n'),
  },
];

export const DENY_SCAN_PATCHES = [
  {
    name: 'a depth below 0: the fixed names only, no ripgrep',
    anchor: [
      '    const denyPaths = linuxGetCwdMandatoryDenyPaths(allowGitConfig);',
      '    // Build iglob args for all patterns in one ripgrep call',
    ].join('\n'),
    replacement: [
      '    const denyPaths = linuxGetCwdMandatoryDenyPaths(allowGitConfig);',
      '    // Keel: asked for no scan (WrapWithSandboxOptions.mandatoryDenyScan).',
      '    if (maxDepth < 0)',
      '        return denyPaths;',
      '    // Build iglob args for all patterns in one ripgrep call',
    ].join('\n'),
  },
];

const require = createRequire(import.meta.url);
const PACKAGES = [
  {
    name: '@huggingface/jinja', version: '0.5.11', files: { 'index.js': JINJA_PATCHES, 'index.cjs': JINJA_PATCHES },
    dist: () => dirname(require.resolve('@huggingface/jinja')),
  },
  {
    name: 'lifecycle-utils', version: '4.5.2', files: { 'splitText.js': SPLIT_TEXT_PATCHES },
    dist: () => dirname(createRequire(require.resolve('node-llama-cpp')).resolve('lifecycle-utils')),
  },
  {
    name: 'node-llama-cpp', version: '3.21.1',
    files: {
      'evaluator/LlamaContext/LlamaContext.js': DECODE_PATCHES,
      'chatWrappers/generic/utils/squashChatHistoryItems.js': SQUASH_PATCHES,
      'chatWrappers/generic/utils/UniqueIdGenerator.js': UNIQUE_ID_PATCHES,
    },
    dist: () => dirname(require.resolve('node-llama-cpp')),
  },
  {
    name: '@anthropic-ai/sandbox-runtime', version: '0.0.83',
    files: {
      'utils/which.js': WHICH_PATCHES,
      'sandbox/sandbox-manager.js': WRAP_OPTION_PATCHES,
      'sandbox/sandbox-manager.d.ts': WRAP_OPTION_TYPE_PATCHES,
      'sandbox/linux-sandbox-utils.js': DENY_SCAN_PATCHES,
    },
    dist: () => dirname(require.resolve('@anthropic-ai/sandbox-runtime')),
  },
];

/** The file as it was before `patches` (tests compare a patched function with the original). */
export function unpatched(text, patches) {
  return patches.reduceRight((t, patch) => t.replace(patch.replacement, () => patch.anchor), text);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) patchAll(...process.argv.slice(2));

function patchAll(onlyName, folder) {
  const failures = [];
  for (const pkg of PACKAGES) {
    if (onlyName !== undefined && pkg.name !== onlyName) continue;
    const dist = folder ?? pkg.dist();
    for (const [file, patches] of Object.entries(pkg.files)) {
      const path = join(dist, file);
      let text = readFileSync(path, 'utf8');
      let applied = 0;
      const before = failures.length;
      for (const patch of patches) {
        if (text.includes(patch.replacement)) continue;
        const count = text.split(patch.anchor).length - 1;
        if (count !== 1) {
          failures.push(`${pkg.name} ${file}: patch "${patch.name}": anchor found ${count} times (expected once)`);
          continue;
        }
        text = text.replace(patch.anchor, () => patch.replacement);
        applied++;
      }
      // A file is written whole or not at all: never half-patched.
      if (failures.length > before) continue;
      if (applied > 0) writeFileSync(path, text);
      console.log(`patchPackages: ${path}: ${applied} applied, ${patches.length - applied} already in place`);
    }
  }
  if (failures.length > 0) {
    console.error(
      'patchPackages: FAILED — a package is not the version its patches were written for (' + PACKAGES.map((p) => `${p.name} ${p.version}`).join(', ') + ').\n' +
        'Check each patch against the new version and update scripts/patchPackages.mjs:\n  ' +
        failures.join('\n  '),
    );
    process.exit(1);
  }
}
