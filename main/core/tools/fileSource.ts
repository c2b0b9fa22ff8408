/**
 * Where the file tools read and write a file's text. On its own Keel uses the disk; an editor that
 * drives Keel (keel acp) offers its buffers, so the model reads what the person sees, unsaved
 * changes included, and an edit lands in the editor's buffer instead of under it. Hygiene is the
 * same either way: a result's hash is that of the text it showed (the bytes the file would hold).
 */
import { atomicWrite, readTextFile, sha256 } from '../workspace/files.js';
import { ToolError, type FileText } from '../types.js';

/** An editor's buffers (ACP's fs/read_text_file and fs/write_text_file); each method may be absent. */
export interface FileSource {
  /** Who holds the buffers, for messages ("Zed"). */
  name: string;
  /** The file's text as the editor has it; undefined when it cannot say (Keel then reads the disk). */
  read?(absPath: string): Promise<string | undefined>;
  /** Puts the whole text in the editor's buffer (which saves it); throws when the editor refuses. */
  write?(absPath: string, text: string): Promise<void>;
}

/**
 * A text file as the model is shown it. The disk is read first, so a missing, binary or non-UTF-8
 * file is refused as always; then the editor's buffer, where it holds other text, stands for it.
 */
export async function readShown(absPath: string, files: FileSource | undefined): Promise<FileText> {
  const file = readTextFile(absPath);
  const text = await files?.read?.(absPath).catch(() => undefined);
  if (text === undefined || text === file.text) return file;
  const raw = Buffer.from((file.bom ? '\uFEFF' : '') + text, 'utf8');
  return { absPath, raw, text, bom: file.bom, hash: sha256(raw) };
}

/** Writes a file's whole bytes: through the editor where it takes writes, else atomically on disk. */
export async function writeShown(absPath: string, bytes: Buffer, files: FileSource | undefined): Promise<void> {
  if (!files?.write) return atomicWrite(absPath, bytes);
  const text = bytes.toString('utf8').replace(/^\uFEFF/, '');
  try {
    await files.write(absPath, text);
  } catch (err) {
    throw new ToolError(`Error: ${files.name} did not write ${absPath}: ${(err as Error)?.message ?? String(err)}. Nothing was changed.`);
  }
}
