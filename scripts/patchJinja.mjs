#!/usr/bin/env node
// Runs on `npm install` / `npm ci` (postinstall): brings @huggingface/jinja 0.5.11's evaluation to
// Python Jinja2's semantics where chat templates written for Python depend on it (docs/decisions.md,
// "Chat templates"). Each patch is a general rule of the engine, never a special case for a family:
//   1. a for loop unpacks tuples as it unpacks lists (`for a, b in [("x", 1)]`; TupleValue extends ArrayValue);
//   2. a subscript whose key is not a string (or, on a list, not an integer) gives Undefined, as
//      Jinja2's getitem does when the lookup fails, instead of throwing (`map[undefined_value]`); and
//      dot access on a dict finds its methods get/items/keys/values before a key of that name, as
//      Jinja2's getattr does (`properties.items()` where a parameter is named "items");
//   3. Undefined iterates as empty in a for loop, as Jinja2's default Undefined does;
//   4. `is iterable` is true for what Python can iterate: lists, tuples, strings, dicts and Undefined;
//   5. the string filters (trim, upper, lower, title, capitalize, string, length) read Undefined as "",
//      as Jinja2 does (`param.description|trim` where a parameter has no description);
//   6. a string times an integer repeats the string, as in Python (`"    " * depth`).
// Contract: both dist/index.js (ESM) and dist/index.cjs get every patch; a file that already holds a
// patch's replacement is left alone (so a second run is a no-op); an anchor missing from a file that
// lacks the replacement (a new library version) fails the install loudly, naming the patch and file.
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const PATCHES = [
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
      '      value = !(property instanceof StringValue) ? void 0 : (!expr.computed && object instanceof ObjectValue && ["get", "items", "keys", "values"].includes(property.value) ? object.builtins.get(property.value) : void 0) ?? object.value.get(property.value) ?? (object instanceof ObjectValue ? object.builtins.get(property.value) : void 0);',
    ].join('\n'),
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
];

// The library's dist folder, or another folder holding the two files (the test passes a copy).
const dist = process.argv[2] ?? dirname(createRequire(import.meta.url).resolve('@huggingface/jinja'));
const failures = [];
for (const file of ['index.js', 'index.cjs']) {
  const path = join(dist, file);
  let text = readFileSync(path, 'utf8');
  let applied = 0;
  const before = failures.length;
  for (const patch of PATCHES) {
    if (text.includes(patch.replacement)) continue;
    const count = text.split(patch.anchor).length - 1;
    if (count !== 1) {
      failures.push(`${file}: patch "${patch.name}": anchor found ${count} times (expected once)`);
      continue;
    }
    text = text.replace(patch.anchor, () => patch.replacement);
    applied++;
  }
  // A file is written whole or not at all: never half-patched.
  if (failures.length > before) continue;
  if (applied > 0) writeFileSync(path, text);
  console.log(`patchJinja: ${path}: ${applied} applied, ${PATCHES.length - applied} already in place`);
}
if (failures.length > 0) {
  console.error(
    'patchJinja: FAILED — @huggingface/jinja is not the version these patches were written for (0.5.11).\n' +
      'Check each Python-Jinja fix against the new library and update scripts/patchJinja.mjs:\n  ' +
      failures.join('\n  '),
  );
  process.exit(1);
}
