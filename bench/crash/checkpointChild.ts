/**
 * The checkpoint kill loop's child (see checkpointLoop.ts): on one workspace and shadow repository,
 * turns of random changes, each recorded, and every few turns a rewind with files to a turn this
 * child began, checked exact. Before a rewind it prints `rewind BEFORE AFTER` (the workspace's
 * digest now and the one the rewind must leave), after it `done`; around each record `snap` and
 * `snapped`; the parent kills it anywhere, or just after one of those lines.
 *
 *   tsx bench/crash/checkpointChild.ts DATA_DIR WORKSPACE SEED
 */
import fs from 'node:fs';
import path from 'node:path';
import { GitCheckpoints } from '../../main/checkpoints/gitCheckpoints.js';
import { Rng } from '../prng.js';
import { treeDigest } from '../../test/treeDigest.js';

const [dir, root, seedText] = process.argv.slice(2);
const rng = new Rng(Number(seedText));
const seqFile = path.join(dir, '..', 'next-seq');
let seq = Number(fs.existsSync(seqFile) ? fs.readFileSync(seqFile, 'utf8') : '1');
const cp = new GitCheckpoints({ dir, root, fresh: !fs.existsSync(dir) });
cp.recover(() => {});
console.log('ready');
/** The digest at the start of each turn this child began: only those can be exact (an earlier child's unrecorded half-call is an outside change). */
const digests = new Map<number, string>();

for (;;) {
  fs.writeFileSync(seqFile, String(seq + 1));
  digests.set(seq, treeDigest(root));
  if (snap(() => cp.turnStarted(seq))) process.exit(3);
  for (let c = rng.int(1, 3); c > 0; c--) {
    snap(() => cp.beforeCall(seq));
    for (let k = rng.int(1, 6); k > 0; k--) change();
    if (snap(() => cp.afterCall(seq))) process.exit(3);
  }
  if (digests.size > 1 && rng.chance(0.4)) {
    const seqs = [...digests.keys()];
    const to = seqs[rng.int(0, seqs.length - 2)];
    const after = digests.get(to)!;
    console.log(`rewind ${treeDigest(root)} ${after}`);
    cp.rewind(to, () => {});
    if (treeDigest(root) !== after) {
      console.error(`rewind to ${to} not exact`);
      process.exit(4);
    }
    for (const s of seqs) if (s >= to) digests.delete(s);
    console.log('done');
  }
  seq++;
}

/** A record, between the lines that tell the parent a kill now lands inside one. */
function snap(record: () => string | undefined): string | undefined {
  console.log('snap');
  const failed = record();
  console.log('snapped');
  if (failed) console.error(`a record failed: ${failed}`);
  return failed;
}

/** One random change: a new file, an edit, a removal, a rename, a mode bit. */
function change(): void {
  const files = listFiles();
  const what = files.length < 5 ? 0 : rng.int(0, 4);
  const name = `d${rng.int(0, 3)}/f${rng.int(0, 40)}.txt`;
  const target = files.length > 0 ? files[rng.int(0, files.length - 1)] : undefined;
  if (what === 0 || !target) {
    fs.mkdirSync(path.join(root, path.dirname(name)), { recursive: true });
    fs.writeFileSync(path.join(root, name), `${name} ${rng.int(0, 1e9)}\n`.repeat(rng.int(1, 2000)));
  } else if (what === 1) fs.appendFileSync(path.join(root, target), `more ${rng.int(0, 1e9)}\n`);
  else if (what === 2) fs.rmSync(path.join(root, target));
  else if (what === 3 && !fs.existsSync(path.join(root, name))) {
    fs.mkdirSync(path.join(root, path.dirname(name)), { recursive: true });
    fs.renameSync(path.join(root, target), path.join(root, name));
  } else fs.chmodSync(path.join(root, target), rng.chance(0.5) ? 0o755 : 0o644);
}

function listFiles(): string[] {
  return fs.readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.relative(root, path.join(e.parentPath, e.name)));
}
