/**
 * Reading a user's file, or stdin, whole but never more than a byte limit: a regular file's size is looked at
 * before anything is read, and every read stops one byte past the limit (a file that grows, a pipe, a device), so a
 * 100 MB file costs neither its memory nor its reading time. Used for puzzle, hint and board files (cli/io.ts,
 * `--max-puzzle-mb`) and for the small files of secrets and certificates (`readSmallFile`).
 */
import { closeSync, fstatSync, openSync, readSync } from "node:fs";

/** The bytes, or how large the input is when it is above the limit (null: only "larger" is known). */
export type BoundedRead = { ok: true; data: Buffer } | { ok: false; size: number | null };

/** The largest key, certificate, token or password file read (`readSmallFile`); such files are a few KB. */
export const MAX_SMALL_FILE_BYTES = 1024 * 1024;

/** Reads `path` whole when it has at most `maxBytes` bytes; errors of open and read (ENOENT, EISDIR...) are thrown. */
export function readFileBounded(path: string, maxBytes: number): BoundedRead {
  const fd = openSync(path, "r");
  try {
    const stat = fstatSync(fd);
    if (stat.isFile() && stat.size > maxBytes) return { ok: false, size: stat.size };
    // A regular file's size is a first guess (it may grow while read); anything else starts small and doubles.
    let buf = Buffer.allocUnsafe(Math.min(maxBytes + 1, stat.isFile() ? stat.size + 1 : 1 << 16));
    let n = 0;
    for (;;) {
      if (n === buf.length) {
        if (n > maxBytes) return { ok: false, size: null };
        const bigger = Buffer.allocUnsafe(Math.min(maxBytes + 1, buf.length * 2));
        buf.copy(bigger, 0, 0, n);
        buf = bigger;
      }
      const got = readSync(fd, buf, n, buf.length - n, null);
      if (got === 0) break;
      n += got;
    }
    if (n > maxBytes) return { ok: false, size: null };
    return { ok: true, data: buf.subarray(0, n) };
  } finally {
    closeSync(fd);
  }
}

/** Reads a stream (stdin) to its end when it has at most `maxBytes` bytes; stops reading (and destroys it) past that. */
export async function readStreamBounded(stream: AsyncIterable<Buffer | string>, maxBytes: number): Promise<BoundedRead> {
  const chunks: Buffer[] = [];
  let n = 0;
  // Leaving the loop early destroys the stream: nothing more is read.
  for await (const chunk of stream) {
    const b = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
    n += b.length;
    if (n > maxBytes) return { ok: false, size: null };
    chunks.push(b);
  }
  return { ok: true, data: Buffer.concat(chunks) };
}

/** Why a file operation failed, in words for a message after its name: "no such file or directory", ... */
export function fileProblem(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  switch (e.code) {
    case "ENOENT": return "no such file or directory";
    case "EISDIR": return "is a directory";
    case "EACCES": case "EPERM": return "permission denied";
    case "ENOTDIR": return "a part of the path is not a directory";
    case "ENOSPC": return "no space left on the device";
    default: return e.message;
  }
}

/** A file larger than a reader takes. */
export class FileTooLargeError extends Error {
  override readonly name = "FileTooLargeError";
}

/**
 * A key, certificate, token or password file, whole; throws FileTooLargeError above MAX_SMALL_FILE_BYTES (a wrong
 * path, such as a log or a disk image, is refused at once instead of filling the memory). Callers name the flag.
 */
export function readSmallFile(path: string): Buffer {
  const read = readFileBounded(path, MAX_SMALL_FILE_BYTES);
  if (read.ok) return read.data;
  const size = read.size === null ? "more than 1 MiB" : `${(read.size / 1024 / 1024).toFixed(1)} MiB`;
  throw new FileTooLargeError(`the file is ${size}, above the 1 MiB a key, certificate, token or password file may have`);
}
