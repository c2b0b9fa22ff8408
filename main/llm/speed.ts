/**
 * Speed measured on this machine (issue 37): `keel doctor MODEL --measure` (measureSpeed.ts) times
 * decoding (ms a token) and prefill (tokens a second) at each candidate thread count, and prefill at
 * a few batch sizes, and keeps the figures in Keel's data folder, one file per key: what the figures
 * depend on (the CPU, its cores, the backend and its devices, llama.cpp, the model file's identity,
 * flash attention). A figure is only read back under the same key, so a changed model file, another
 * machine or another flash attention setting reads nothing, and `threads: auto` keeps its rule
 * (threads.ts) until measured again.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Llama } from 'node-llama-cpp';
import { fileIdentity } from './fileIdentity.js';

/** Where the figures are kept, inside Keel's data folder. */
export function speedFolder(dataFolder: string): string {
  return path.join(dataFolder, 'speed');
}

/** What a measurement's figures depend on. */
export interface SpeedKey {
  cpu: string;
  mathCores: number;
  /** os.availableParallelism(): the cores this process may use (a container's or affinity limit). */
  usableCores: number;
  backend: string;
  devices: string[];
  llamaCpp: string;
  /** fileIdentity.ts: its size and the hash of its ends. */
  model: string;
  /** The context's flashAttention option (fit.ts flashAttentionOption). */
  flashAttention: 'auto' | boolean;
}

export interface SpeedFigures {
  key: SpeedKey;
  /** ISO time the measurement began. */
  measuredAt: string;
  /** The 1-minute load average as it began: other work on the machine skews the figures. */
  loadAverage: number;
  /** Per thread count: decoding's ms a token (one token a step) and prefill tokens a second (at node-llama-cpp's default batch, 512). */
  threads: { threads: number; decodeMs: number; prefillPerSecond: number }[];
  /**
   * Prefill tokens a second per batch size, at the best prefill thread count: its best round, and its
   * slowest (how far other work moved it). Empty where not measured (`batchNote` says why).
   */
  batches: { batchSize: number; prefillPerSecond: number; slowestPerSecond: number }[];
  batchNote?: string;
}

export async function speedKey(llama: Llama, file: string, flashAttention: 'auto' | boolean): Promise<SpeedKey> {
  return {
    cpu: os.cpus()[0]?.model.trim() ?? 'unknown', mathCores: llama.cpuMathCores, usableCores: os.availableParallelism(),
    backend: llama.gpu === false ? 'cpu' : llama.gpu, devices: await llama.getGpuDeviceNames(), llamaCpp: llama.llamaCppRelease.release,
    model: fileIdentity(file), flashAttention,
  };
}

const fileOf = (folder: string, key: SpeedKey) =>
  path.join(folder, `${crypto.createHash('sha256').update(JSON.stringify(key)).digest('hex').slice(0, 24)}.json`);

/** The figures measured under `key`, if any (a file that does not parse, or holds another key, is none). */
export function readSpeed(folder: string, key: SpeedKey): SpeedFigures | undefined {
  let figures: SpeedFigures;
  try {
    figures = JSON.parse(fs.readFileSync(fileOf(folder, key), 'utf8')) as SpeedFigures;
  } catch {
    return undefined;
  }
  const usable = JSON.stringify(figures.key) === JSON.stringify(key) && Array.isArray(figures.threads) && figures.threads.length > 0 && Array.isArray(figures.batches);
  return usable ? figures : undefined;
}

/** Keeps the figures under their key, replacing an earlier measurement's; returns the file. */
export function writeSpeed(folder: string, figures: SpeedFigures): string {
  fs.mkdirSync(folder, { recursive: true });
  const file = fileOf(folder, figures.key);
  const temporary = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, `${JSON.stringify(figures, null, 2)}\n`);
  fs.renameSync(temporary, file);
  return file;
}
