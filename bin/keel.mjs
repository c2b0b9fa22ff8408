#!/usr/bin/env node
// The `keel` command: runs main/cli (TypeScript) through tsx's loader, so no build step is needed.
import { register } from 'tsx/esm/api';

register();
const { runCli } = await import('../main/cli/index.ts');
process.exitCode = await runCli(process.argv.slice(2));
// The command sandbox's proxies keep the process alive; stop them so it can exit.
await (await import('../main/sandbox/runner.ts')).stopSandbox();
