#!/usr/bin/env node
// The `keel` command: runs main/cli (TypeScript) through tsx's loader, so no build step is needed.
import { register } from 'tsx/esm/api';

register();
const { runCli } = await import('../main/cli/index.ts');
process.exitCode = await runCli(process.argv.slice(2));
