import path from 'node:path';
import { describeSandbox, type SandboxStatus } from '../../core/tools/commandRunner.js';
import { doctor } from '../../llm/doctor.js';
import { n, size } from '../../llm/fit.js';
import { measureSpeed } from '../../llm/measureSpeed.js';
import { settingsOf } from '../../llm/model.js';
import { speedFolder } from '../../llm/speed.js';
import type { Architecture, Choice, DoctorReport, LocalSettings, ModelPlan } from '../../llm/localSettings.js';
import { CliError, type Io } from '../io.js';
import { sandboxStatus } from '../../sandbox/runner.js';
import { LOCAL_FLAGS, modelFile } from './model.js';
import { dataUsage, keelHome, type DataUsage } from '../../keelHome.js';
import { ServerClient } from '../../remote/http.js';
import { serverCache, type ServerCacheReport } from '../../serverCache.js';
import { serverKey, type ServerFlags } from './server.js';
import { PROJECT_FILE_KINDS, type ProjectFilesView, type ProjectFileView } from '../../contract/projectFiles.js';
import { visibleText } from '../../core/permissions/visible.js';
import { resolveFolder } from '../../app/mcp.js';
import { projectFiles } from '../../app/projectFiles.js';

/**
 * `keel doctor [MODEL.gguf] [--json] [--workspace DIR] [--measure]`: the report on stdout, as text or JSON, and whether commands
 * run in a sandbox here and why not (JSON: `sandbox`). When the settings cannot be used with
 * MODEL, the report still prints (with what fits) and the exit code is 1. With `--server URL`, also
 * the model that llama-server serves and the server flags that keep its cache (JSON: `server`).
 * The workspace's project files (DIR, default the current folder) with what Keel made of each
 * (JSON: `projectFiles`): which were read, which wait for approval, and which it cannot use.
 * `--measure` first measures MODEL's speed here and keeps it (runMeasure).
 */
export async function runDoctor(model: string | undefined, settings: Partial<LocalSettings>, json: boolean, io: Io, flags: ServerFlags = {}, workspace = '.', measure = false): Promise<boolean> {
  const modelPath = model === undefined ? undefined : modelFile(model);
  let files: ProjectFilesView;
  try {
    files = projectFiles(keelHome(), resolveFolder(workspace));
  } catch (e) {
    throw new CliError((e as Error).message);
  }
  const speed = speedFolder(keelHome());
  if (measure) await runMeasure(modelPath, settings, speed, io);
  let report: DoctorReport;
  try {
    report = await doctor({ settings, modelPath, speedFolder: speed });
  } catch (e) {
    throw new CliError((e as Error).message);
  }
  const server = flags.server === undefined ? undefined : await serverCache(new ServerClient({ url: flags.server, apiKey: serverKey(flags.keyFile) }))
    .catch((e: Error) => {
      throw new CliError(e.message);
    });
  const sandbox = await sandboxStatus();
  const home = keelHome();
  const data = { folder: home, ...dataUsage(home) };
  io.out.write(json ? `${JSON.stringify({ ...report, ...(server && { server }), data, projectFiles: files, sandbox }, null, 2)}\n`
    : noSandboxWarning(sandbox) + formatDoctor(report) + (server ? formatServer(server) : '') + formatData(home, data) + formatProjectFiles(files) + formatSandbox(sandbox));
  if (report.model?.problem) io.err.write(`keel: ${report.model.problem}\n`);
  return report.model?.problem === undefined;
}

/**
 * `--measure`: times the model's decoding and prefill here (llm/measureSpeed.ts), each figure on
 * stderr as it comes, and keeps them, so the report after it shows what `threads: auto` takes.
 */
async function runMeasure(modelPath: string | undefined, settings: Partial<LocalSettings>, folder: string, io: Io): Promise<void> {
  if (modelPath === undefined) throw new CliError('--measure needs a model file: keel doctor FILE.gguf --measure.');
  io.err.write(`Measuring ${modelPath}: decoding and prefill at each thread count, then batch sizes…\n`);
  try {
    const { figures, path: kept } = await measureSpeed(modelPath, settingsOf({ settings }), folder, (step) => io.err.write(`  ${step}\n`));
    io.err.write(`Kept in ${kept}.\n`);
    const cores = figures.key.usableCores;
    if (figures.loadAverage > cores) {
      io.err.write(`The load average was ${figures.loadAverage.toFixed(2)} on ${n(cores)} cores: other work shaped these figures. Measure again when the machine is quieter, if it usually is.\n`);
    }
  } catch (e) {
    throw new CliError(`Keel could not measure ${modelPath}: ${(e as Error).message}`);
  }
}

const WIDTH = 17;
const row = (label: string, value: string, why?: string) =>
  `  ${label.padEnd(WIDTH)}${value}\n${why ? `  ${''.padEnd(WIDTH)}${why}\n` : ''}`;
const chosen = <T>(label: string, c: Choice<T>, shown: string = String(c.value)) => row(label, shown, c.why);

export function formatDoctor(r: DoctorReport): string {
  const m = r.machine;
  let text = 'Machine\n';
  text += row('backend', m.backend, m.why);
  text += row('devices', m.devices.length ? m.devices.join(', ') : 'none');
  if (m.vram) text += row('VRAM', memory(m.vram));
  text += row('RAM', memory(m.ram));
  text += row('CPU', `${n(m.cpuMathCores)} cores useful for math`);
  text += row('llama.cpp', m.llamaCpp);
  text += row('settings', Object.entries(LOCAL_FLAGS).filter(([, key]) => r.settings[key] !== undefined).map(([flag, key]) => `--${flag} ${r.settings[key]}`).join(' '));
  const p = r.model;
  if (!p) return text;
  text += `\nModel ${p.path}\n`;
  text += row('file', `${size(p.sizeBytes)}, ${n(p.totalLayers)} layers, trained for ${n(p.trainContextSize)} tokens`);
  text += chosen('context size', p.contextSize, `${n(p.contextSize.value)} tokens per session, ${p.sequences} sessions`);
  text += chosen('GPU layers', p.gpuLayers, `${n(p.gpuLayers.value)} of ${n(p.totalLayers)}`);
  text += chosen('KV cache', p.kvCacheType);
  text += chosen('flash attention', p.flashAttention);
  if (p.speculation) text += chosen('speculation', p.speculation);
  if (p.draft) text += chosen('draft model', p.draft, p.draft.value ?? 'none');
  text += chosen('threads', p.threads);
  if (p.batchThreads) text += chosen('prefill threads', p.batchThreads);
  if (p.batchSize) text += chosen('batch size', p.batchSize, `${n(p.batchSize.value)} tokens`);
  text += formatCache(p.cache);
  if (p.estimate) text += row('memory', `about ${size(p.estimate.ram)} RAM and ${size(p.estimate.vram)} VRAM (node-llama-cpp's estimate)`);
  if (p.problem) text += `\nThese settings cannot be used: ${p.problem}\n`;
  return text;
}

/** The model's architecture and how its cache is kept reusable: the window cache or checkpoints, and their memory. */
export function formatCache(c: ModelPlan['cache']): string {
  const a = c.architecture;
  let text = row('architecture', archWords(a));
  if (a.window) text += chosen('window cache', { value: c.fullWindowCache.value ? 'full' : 'window only', why: c.fullWindowCache.why });
  text += chosen('cache reuse', c.strategy);
  if (c.budget) text += row('KV checkpoints', `about ${size(c.checkpointBytes ?? 0)} each, up to ${size(c.budget.value)} per session`, c.warning ?? c.budget.why);
  return text;
}

const archWords = (a: Architecture) => `${a.name}: ${a.class}${a.window ? ` (${n(a.window)}-token window)` : ''}`;

/** The server section: the model a llama-server serves, its class, and the flags that keep its cache. */
export function formatServer(s: ServerCacheReport): string {
  const a = s.architecture;
  let text = `\nServer ${s.url}\n`;
  if (s.modelPath) text += row('model file', s.modelPath);
  text += row('architecture', a ? archWords(a) : 'unknown', s.unknown);
  text += row('flags', s.advice[0] ?? 'none needed: any prefix of its cache is reused');
  for (const more of s.advice.slice(1)) text += row('', more);
  if (s.speculation) text += row('speculation', s.speculation.on ? 'on: each request\'s drafted and accepted tokens are recorded' : 'off', s.speculation.advice);
  return text;
}

/** The data section: what the sessions' checkpoints and saved states take in the data folder. */
export function formatData(home: string, d: DataUsage): string {
  const sessions = `${n(d.checkpoints.sessions)} session${d.checkpoints.sessions === 1 ? '' : 's'}`;
  return `\nData ${home}\n`
    + row('checkpoints', `${size(d.checkpoints.bytes)} for ${sessions}`, 'Removed with their session; a rewind with files needs all of a session\'s.')
    + row('saved states', size(d.states.bytes), 'Kept within their budget: the oldest go first.');
}

/** Where each file waiting for approval is approved. */
const APPROVE_WITH: Partial<Record<ProjectFileView['kind'], (f: ProjectFileView, root: string) => string>> = {
  settings: (f) => `keel hooks approve --workspace ${f.path}`,
  mcp: (_f, root) => `keel mcp approve --workspace ${root}`,
};

const STATE_WORDS: Record<ProjectFileView['state'], string> = { read: 'read', approved: 'approved', waiting: 'waiting for approval', problem: 'not used' };

/**
 * The project files section: each file Keel found for the workspace (inside it by its relative
 * path), its kind and state, and below it why it is not used or where it is approved. Every
 * hidden character of a path or problem is named: a cloned repository chooses its file names.
 */
export function formatProjectFiles(v: ProjectFilesView): string {
  let text = `\nProject files ${visibleText(v.workspace)}\n`;
  if (v.files.length === 0) return text + row('', 'none found (AGENTS.md, CLAUDE.md, .claude/, .keel/, .mcp.json)');
  for (const f of v.files) {
    const shown = f.path.startsWith(v.workspace + path.sep) ? path.relative(v.workspace, f.path) : f.path;
    const approve = f.state === 'waiting' ? APPROVE_WITH[f.kind]?.(f, v.workspace) : undefined;
    const why = f.problem ?? (approve && `nothing of it is used until you approve it: ${approve}`);
    text += row(PROJECT_FILE_KINDS[f.kind], `${visibleText(shown)}: ${STATE_WORDS[f.state]}`, why && visibleText(why));
  }
  return text;
}

/** Where no sandbox runs, the first lines say so, and what then runs outside one. */
export function noSandboxWarning(s: SandboxStatus): string {
  if (s.kind === 'sandboxed') return '';
  return `WARNING: no sandbox can run here (${s.reason}).\n`
    + '  Commands not judged read-only ask in every mode; read-only ones may read only inside the workspace.\n'
    + "  Your own hooks and MCP servers run outside any sandbox, with your account; a workspace's hooks ask before each run\n"
    + "  (refused in auto) and a workspace's MCP servers do not start.\n\n";
}

/** The sandbox section: which sandbox runs commands, or why none does (a busy machine's "none" says it is tried again). */
export function formatSandbox(s: SandboxStatus): string {
  return `\nCommands\n${row('sandbox', s.kind === 'sandboxed' ? s.how : 'none', describeSandbox(s))}`;
}

function memory(m: { total: number; free: number; usable: number }): string {
  return `${size(m.total)} total, ${size(m.free)} free, ${size(m.usable)} usable by node-llama-cpp`;
}
