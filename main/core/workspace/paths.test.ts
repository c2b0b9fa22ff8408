import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTempRoot } from '../../../test/toolContext.js';
import { isInside, resolveInWorkspace } from './paths.js';

let ws: ReturnType<typeof makeTempRoot>;
let outside: ReturnType<typeof makeTempRoot>;

beforeEach(() => {
  ws = makeTempRoot({ 'src/app.ts': '', 'docs/readme.md': '' });
  outside = makeTempRoot({ 'secret.txt': '' });
});
afterEach(() => {
  ws.remove();
  outside.remove();
});

const resolve = (given: string): string => resolveInWorkspace(ws.root, given);

describe('isInside', () => {
  it('accepts the root and what is below it, not a sibling sharing its prefix', () => {
    expect(isInside('/tmp/x/proj', '/tmp/x/proj')).toBe(true);
    expect(isInside('/tmp/x/proj', '/tmp/x/proj/a/b')).toBe(true);
    expect(isInside('/tmp/x/proj', '/tmp/x/proj-evil')).toBe(false);
    expect(isInside('/tmp/x/proj', '/tmp/x/proj-evil/a')).toBe(false);
    expect(isInside('/tmp/x/proj', '/tmp/x')).toBe(false);
    expect(isInside('/', '/anything')).toBe(true);
  });
});

describe('resolveInWorkspace', () => {
  it('resolves relative, ./, redundant and absolute paths to one absolute path', () => {
    const app = path.join(ws.root, 'src/app.ts');
    expect(['src/app.ts', './src/app.ts', 'src//app.ts', 'docs/../src/app.ts', app].map(resolve)).toEqual([app, app, app, app, app]);
    expect(resolve('.')).toBe(ws.root);
  });

  it('resolves a path that does not exist yet below its real parent', () => {
    expect(resolve('new/deeper/file.txt')).toBe(path.join(ws.root, 'new/deeper/file.txt'));
    fs.symlinkSync(path.join(ws.root, 'src'), path.join(ws.root, 'alias'));
    expect(resolve('alias/new.ts')).toBe(path.join(ws.root, 'src/new.ts'));
  });

  it('refuses, naming the resolved path: ../, absolute outside, a sibling with the root as prefix', () => {
    const parent = path.dirname(ws.root);
    expect(() => resolve('../x')).toThrow(`Error: ${parent}/x is outside the workspace ${ws.root}`);
    expect(() => resolve('src/../../x')).toThrow(`Error: ${parent}/x is outside`);
    expect(() => resolve(`${ws.root}-evil/x`)).toThrow(`Error: ${ws.root}-evil/x is outside`);
    expect(() => resolve('/')).toThrow('Error: / is outside');
  });

  it('follows symlinks out of the workspace, existing or dangling, and refuses', () => {
    fs.symlinkSync(path.join(outside.root, 'secret.txt'), path.join(ws.root, 'file-link'));
    fs.symlinkSync(outside.root, path.join(ws.root, 'dir-link'));
    fs.symlinkSync(path.join(outside.root, 'nothing'), path.join(ws.root, 'dangling'));
    fs.symlinkSync('dangling', path.join(ws.root, 'chain'));
    expect(() => resolve('file-link')).toThrow(`Error: ${outside.root}/secret.txt is outside`);
    expect(() => resolve('dir-link/new.txt')).toThrow(`Error: ${outside.root}/new.txt is outside`);
    expect(() => resolve('dangling')).toThrow(`Error: ${outside.root}/nothing is outside`);
    expect(() => resolve('chain')).toThrow(`Error: ${outside.root}/nothing is outside`);
    expect(() => resolve('dangling/below.txt')).toThrow(`Error: ${outside.root}/nothing/below.txt is outside`);
  });

  it('keeps a dangling link that points inside, resolved to its target', () => {
    fs.symlinkSync('src/later.ts', path.join(ws.root, 'pending'));
    expect(resolve('pending')).toBe(path.join(ws.root, 'src/later.ts'));
  });

  it('refuses a symlink loop, an empty path and a NUL', () => {
    fs.symlinkSync('loop-b', path.join(ws.root, 'loop-a'));
    fs.symlinkSync('loop-a', path.join(ws.root, 'loop-b'));
    expect(() => resolve('loop-a')).toThrow('Error: too many levels of symbolic links');
    expect(() => resolve('loop-a/x')).toThrow('Error: too many levels of symbolic links');
    expect(() => resolve('')).toThrow('Error: the path is empty.');
    expect(() => resolve('a\0b')).toThrow('Error: the path contains a NUL character.');
  });
});
