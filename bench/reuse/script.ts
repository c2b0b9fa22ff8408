/**
 * The scripted session of bench:reuse: a small TypeScript workspace and a deterministic agent
 * session over it (a person's messages, and for each the model's replies: a short text, a tool
 * call or the final answer). Every harness plays the same replies; each renders them its own way.
 *
 * The generator keeps its own copy of the files, so every edit's `old_string` is unique in the
 * file as it is by then, and the fake test and compiler scripts answer what the edits changed.
 */
import { Rng } from '../prng.js';

export type ToolName = 'read' | 'grep' | 'bash' | 'edit';

/** A call's arguments, always every property of its tool, in the tool's order (see TOOL_PARAMS). */
export interface Call {
  name: ToolName;
  args: Record<string, string>;
}

export interface Reply {
  /** The text before the call, or the whole answer when there is no call. */
  text: string;
  call?: Call;
}

export interface Turn {
  words: string;
  replies: Reply[];
  /** The clock moves to the next day before this turn (the person worked past midnight). */
  newDay?: boolean;
}

export interface Script {
  files: Record<string, string>;
  turns: Turn[];
  calls: number;
}

/** The four tools the stock and naive harnesses offer, each property required, in this order. */
export const TOOL_PARAMS: Record<ToolName, readonly string[]> = {
  read: ['path'],
  grep: ['pattern', 'path'],
  bash: ['command'],
  edit: ['path', 'old_string', 'new_string'],
};

/**
 * Words of the generated model's vocabulary (main/llm/testModel/makeTestModel.ts WORDS): code made
 * of them tokenizes about as densely as real code does with a real tokenizer, so the session's
 * results stay realistic in lines and still fit the context.
 */
const NOUNS = ['file', 'line', 'code', 'test', 'error', 'result', 'output', 'input', 'list', 'data', 'value', 'key', 'name', 'path', 'text', 'index', 'query', 'message', 'content', 'user', 'tool', 'response', 'command'];
const VERBS = ['read', 'write', 'open', 'search', 'replace', 'update', 'create', 'delete', 'find', 'check', 'make', 'run', 'add', 'fix', 'use', 'look', 'build', 'push', 'map', 'filter'];

/** Module → lines: a small Python service, files of 20 to 45 lines. */
const MODULES: [string, number][] = [
  ['src/main.py', 22], ['src/queue.py', 26], ['src/retry.py', 20], ['src/store.py', 24], ['src/config.py', 20],
  ['src/log.py', 20], ['src/server.py', 21], ['src/routes.py', 24], ['src/util.py', 20], ['src/worker.py', 25], ['src/lease.py', 20],
];

function statement(rng: Rng): string {
  const a = rng.pick(NOUNS);
  const b = rng.pick(NOUNS);
  switch (rng.int(0, 7)) {
    case 0: return `    ${a}_count = len(${b}_list)`;
    case 1: return `    if ${b} is None: return None`;
    case 2: return `    ${b}_list.append(${rng.pick(VERBS)}_${b}(${b}))`;
    case 3: return `    total += ${b}.get("limit", ${rng.int(1, 9)})`;
    case 4: return `    log.debug("${rng.pick(VERBS)} ${b}", ${b})`;
    case 5: return `    # ${rng.pick(VERBS)} the ${b} first`;
    case 6: return `    ${a} = ${rng.pick(VERBS)}_${b}(${b}, ${rng.int(1, 64)})`;
    default: return `    ${a}_key = "${b}"`;
  }
}

function moduleText(rng: Rng, rel: string, lines: number, special: string[], defined: string[]): string {
  const out = [`# ${rel}`, 'from .log import log', ''];
  out.push(...special);
  const used = new Set<string>();
  while (out.length < lines - 1) {
    let name = '';
    do name = `${rng.pick(VERBS)}_${rng.pick(NOUNS)}`; while (used.has(name));
    used.add(name);
    defined.push(name);
    const arg = rng.pick(NOUNS);
    out.push(`def ${name}(${arg}, limit=${rng.int(1, 99)}):`, '    total = 0');
    for (let i = rng.int(2, 5); i > 0 && out.length < lines - 3; i--) out.push(statement(rng));
    out.push('    return total', '');
  }
  return out.slice(0, lines).join('\n') + '\n';
}

const SPECIAL: Record<string, string[]> = {
  'src/retry.py': ['def should_retry(attempt, limit):', '    return attempt < limit - 1', ''],
  'src/config.py': ['config = {', '    "retry_limit": 3,', '    "wait_ms": 250,', '    "lease_ms": 30000,', '    "port": 8080,', '}', ''],
  'src/util.py': ['counter = 0', '', 'def make_id(prefix):', '    global counter', '    counter += 1', '    return f"{prefix}-{counter}"', ''],
  'src/lease.py': ['def lease_expired(at, now):', '    return now - at > config["lease_ms"]', ''],
};

const TEST_SH = `#!/usr/bin/env bash
# A small fake test run: its report depends on what the session fixed.
ok=0
if grep -q "attempt < limit$" src/retry.py; then ok=$((ok+1)); else echo "FAILED tests/test_retry.py::test_retry_limit - assert 2 == 3"; fi
if grep -q "from .config import config" src/lease.py; then ok=$((ok+1)); else echo "FAILED tests/test_lease.py::test_expired - NameError: config"; fi
echo "$((14 + ok)) passed, $((2 - ok)) failed in 0.4s"
`;

const CHECK_SH = `#!/usr/bin/env bash
# A small fake type check: the errors it reports depend on what the session fixed.
n=0
if ! grep -q "from .config import config" src/lease.py; then
  echo "src/lease.py:5: error: Name 'config' is not defined  [name-defined]"; n=$((n+1))
fi
if ! grep -q 'make_id(prefix="id")' src/util.py; then
  echo "src/routes.py:14: error: Missing argument 'prefix' for 'make_id'  [call-arg]"; n=$((n+1))
fi
echo "Found $n errors (checked 11 files)"
`;

const uniqueLine = (text: string, line: string) => line.trim().length > 8 && text.split(line).length === 2;

/**
 * `turnsWanted` turns with about `callsWanted` calls: the seeded mix of turns is steered towards
 * the number of calls (a turn without calls once enough were made, none while too few are left).
 */
export function generateScript(seed: number, turnsWanted = 62, callsWanted = 56): Script {
  const rng = new Rng(seed);
  const files = new Map<string, string>();
  const defined: string[] = [];
  for (const [rel, lines] of MODULES) files.set(rel, moduleText(rng, rel, lines, SPECIAL[rel] ?? [], defined));
  for (const t of ['queue', 'retry', 'lease', 'store']) {
    const body = [`from src.${t} import *`, ''];
    for (let i = rng.int(3, 5); i > 0; i--) body.push(`def test_${rng.pick(VERBS)}_${rng.pick(NOUNS)}_${i}():`, `    assert ${rng.pick(VERBS)}_${rng.pick(NOUNS)}(None) == 0`, '');
    files.set(`tests/test_${t}.py`, body.join('\n'));
  }
  files.set('pyproject.toml', '[project]\nname = "taskq"\nversion = "0.3.0"\nrequires-python = ">=3.11"\n');
  files.set('README.md', '# taskq\n\nA small job queue with leases and retries.\n\nRun `bash scripts/test.sh` and `bash scripts/check.sh`.\n');
  files.set('scripts/test.sh', TEST_SH);
  files.set('scripts/check.sh', CHECK_SH);

  const initial = Object.fromEntries(files);
  const sources = MODULES.map(([rel]) => rel);
  const readOnce = new Set<string>();
  /** Files read and unchanged since: a re-read of one is what Keel answers with a stub. */
  const fresh = new Set<string>();
  const turns: Turn[] = [];
  let calls = 0;
  const call = (name: ToolName, args: Record<string, string>): Call => {
    calls++;
    const ordered: Record<string, string> = {};
    for (const key of TOOL_PARAMS[name]) ordered[key] = args[key];
    return { name, args: ordered };
  };
  const lead = (text: string) => (rng.chance(0.3) ? text : '');
  const read = (rel: string): Reply => {
    readOnce.add(rel);
    fresh.add(rel);
    return { text: lead(rng.pick([`Let me read ${rel}.`, 'Let me look at the file.', 'I will read it.'])), call: call('read', { path: rel }) };
  };
  const grep = (pattern: string, where: string): Reply => ({ text: lead('Let me search for it.'), call: call('grep', { pattern, path: where }) });
  const bash = (command: string): Reply => ({ text: lead(rng.pick(['Let me run it.', 'Let me check.', 'I will run the command.'])), call: call('bash', { command }) });
  /**
   * An edit of the first fragment `pick` finds in a line that is unique in the file as it is now,
   * and only that fragment is sent (as a model does: the smallest unique old_string).
   */
  const edit = (rel: string, pick: (line: string) => string | undefined, change: (fragment: string) => string): Reply => {
    const text = files.get(rel)!;
    let fragment: string | undefined;
    for (const line of text.split('\n')) {
      const f = uniqueLine(text, line) ? pick(line) : undefined;
      if (f !== undefined && text.split(f).length === 2) {
        fragment = f;
        break;
      }
    }
    if (fragment === undefined) throw new Error(`no unique fragment to edit in ${rel}`);
    fresh.delete(rel);
    const next = change(fragment);
    files.set(rel, text.replace(fragment, next));
    return { text: lead('Let me fix it.'), call: call('edit', { path: rel, old_string: fragment, new_string: next }) };
  };
  const answer = (text: string): Reply => ({ text });

  // Fixed tasks first (they change what the test and check scripts report), then a seeded mix.
  const plan: (() => Turn)[] = [
    () => ({ words: 'The tests fail. Run them and tell me what is wrong.', replies: [bash('bash scripts/test.sh'), answer('Two fail: retry and lease.')] }),
    () => ({ words: 'Look at the retry first.', replies: [grep('should_retry', 'src'), read('src/retry.py'), answer('It stops at limit - 1: one try too early.')] }),
    () => ({ words: 'Fix it and run the test again.', replies: [edit('src/retry.py', (l) => (l.includes('limit - 1') ? 'limit - 1' : undefined), () => 'limit'), bash('bash scripts/test.sh tests/test_retry.py'), answer('Fixed. The retry test is ok now.')] }),
    () => ({ words: 'Now the lease one.', replies: [read('src/lease.py'), bash('bash scripts/check.sh'), answer('lease.py uses config with no import.')] }),
    () => ({ words: 'Add the import.', replies: [edit('src/lease.py', (l) => (l === 'from .log import log' ? l : undefined), (l) => `${l}\nfrom .config import config`), bash('bash scripts/test.sh'), answer('Done. All tests pass now.')] }),
    () => ({ words: 'What does the check still say?', replies: [bash('bash scripts/check.sh'), grep('make_id\\(', 'src'), read('src/util.py'), answer('routes.py calls make_id with no prefix.')] }),
    () => ({ words: 'Give the prefix a default.', replies: [edit('src/util.py', (l) => (l.includes('make_id(prefix)') ? 'make_id(prefix)' : undefined), () => 'make_id(prefix="id")'), bash('bash scripts/check.sh'), answer('Done. The check finds no errors.')] }),
  ];
  const questions = [
    'Is the queue bounded?', 'Which port does the server use?', 'Should we log each lease?', 'Is there a risk in the store?',
    'What is the default wait?', 'What did we change so far?', 'Do the workers share data?', 'Any dead code?',
  ];
  const answers = [
    'No, there is no limit.', 'Port 8080.', 'Only at debug level.', 'It is in memory only.',
    '250 ms.', 'The retry limit, the lease import and the id prefix.', 'Only the store.', 'A few helpers, no harm.',
  ];
  let q = 0;
  const mixed = (turnsLeft: number): Turn => {
    const callsLeft = callsWanted - calls;
    // First reads come from six of the modules; the rest of the session re-reads them.
    const unread = sources.slice(0, 6).filter((f) => !readOnce.has(f));
    const rel = rng.pick(unread.length > 0 ? unread : sources.slice(0, 6));
    const noun = rng.pick(NOUNS);
    const kind = callsLeft <= 0 ? 'ask' : rng.weighted({ ask: callsLeft > turnsLeft * 1.2 ? 0 : 6, find: 1, read: 1, edit: 2, run: 4, grep: 4, reread: 3 });
    switch (kind) {
      case 'ask': {
        const i = q++ % questions.length;
        return { words: questions[i], replies: [answer(answers[i])] };
      }
      case 'find': {
        const name = rng.pick(defined);
        return { words: `Where is ${name}?`, replies: [grep(`def ${name}`, 'src'), read(rel), answer(`In ${rel}.`)] };
      }
      case 'read':
        return { words: `What is in ${rel}?`, replies: [read(rel), answer(`Small helpers for the ${noun}.`)] };
      case 'edit': {
        const numbered = (l: string) => /\w+\(\w+, \d+\)$/.exec(l)?.[0];
        const editable = (f: string) => files.get(f)!.split('\n').some((l) => uniqueLine(files.get(f)!, l) && numbered(l));
        const target = rng.pick(sources.slice(0, 6).filter(editable));
        // An agent reads a file before its first edit; after its own edit it knows the content.
        const before = readOnce.has(target) ? [] : [read(target)];
        const change = edit(target, numbered, (f) => f.replace(/(\d+)\)$/, (_m, d: string) => `${Number(d) + 1})`));
        return { words: `In ${target}, add one to the odd constant.`, replies: [...before, change, bash('bash scripts/test.sh'), answer('Done. The tests still pass.')] };
      }
      case 'run': {
        const commands = ['bash scripts/check.sh', 'wc -l src/*.py', 'cat pyproject.toml', `grep -c def ${rel}`, 'bash scripts/test.sh', 'git status --short'];
        const first = rng.pick(commands);
        const replies = [bash(first)];
        if (rng.chance(0.4)) replies.push(bash(rng.pick(commands.filter((c) => c !== first))));
        return { words: rng.pick(['Check the build.', 'How big is the code?', 'Show me the project.', 'Run a quick check, please.']), replies: [...replies, answer('All fine.')] };
      }
      case 'grep': {
        const name = rng.pick(defined);
        const replies = [grep(`${name}\\(`, 'src')];
        if (rng.chance(0.5)) replies.push(grep('log.debug', rel));
        return { words: `Who calls ${name}?`, replies: [...replies, answer('Only what the search shows.')] };
      }
      default: {
        const again = fresh.size > 0 ? [...fresh][rng.int(0, fresh.size - 1)] : rel;
        return { words: `Read ${again} again.`, replies: [read(again), answer('It is as we left it.')] };
      }
    }
  };
  for (let i = 0; i < turnsWanted; i++) {
    const turn = i < plan.length ? plan[i]() : mixed(turnsWanted - i);
    if (i === Math.floor(turnsWanted / 2)) turn.newDay = true;
    turns.push(turn);
  }
  return { files: initial, turns, calls };
}
