// Adding files to a newc ("070701") cpio initrd, so a host program can run
// in the guest: the entries are appended before the trailer, with any
// missing parent directories, and the result is deterministic (mtime 0,
// inode numbers following the archive's highest).

export interface InitrdFile {
  /** Absolute guest path, e.g. `/bin/prog`. */
  readonly path: string;
  readonly data: Uint8Array;
  /** Permission bits (default 0o755). */
  readonly mode?: number;
}

export class InitrdError extends Error {
  override name = 'InitrdError';
}

const HEADER = 110;
const S_IFDIR = 0o040000;
const S_IFREG = 0o100000;
const align4 = (n: number): number => (n + 3) & ~3;

export interface InitrdEntry {
  name: string;
  ino: number;
  mode: number;
  /** Offset of the entry's header in the archive. */
  offset: number;
  /** Where its data starts in the archive, and how many bytes. */
  dataStart: number;
  size: number;
}

function hex8(n: number): string {
  return (n >>> 0).toString(16).padStart(8, '0');
}

/** The entries of a newc archive and the offset of its trailer; errors name the offset. */
export function readInitrdEntries(archive: Uint8Array): { entries: InitrdEntry[]; trailer: number } {
  const text = (from: number, to: number): string => {
    let s = '';
    for (let i = from; i < to; i++) s += String.fromCharCode(archive[i]!);
    return s;
  };
  const entries: InitrdEntry[] = [];
  let offset = 0;
  while (offset + HEADER <= archive.length) {
    const magic = text(offset, offset + 6);
    if (magic !== '070701') throw new InitrdError(`initrd: bad cpio magic ${JSON.stringify(magic)} at offset ${offset}`);
    const field = (i: number): number => {
      const v = Number.parseInt(text(offset + 6 + i * 8, offset + 14 + i * 8), 16);
      if (!Number.isFinite(v)) throw new InitrdError(`initrd: bad header field ${i} at offset ${offset}`);
      return v;
    };
    const nameSize = field(11);
    const fileSize = field(6);
    const name = text(offset + HEADER, offset + HEADER + nameSize - 1);
    if (name === 'TRAILER!!!') return { entries, trailer: offset };
    const dataStart = align4(offset + HEADER + nameSize);
    if (dataStart + fileSize > archive.length) throw new InitrdError(`initrd: entry ${JSON.stringify(name)} at offset ${offset} is truncated`);
    entries.push({ name, ino: field(0), mode: field(1), offset, dataStart, size: fileSize });
    offset = align4(dataStart + fileSize);
  }
  throw new InitrdError(`initrd: no TRAILER!!! entry (archive of ${archive.length} bytes)`);
}

function entryBytes(name: string, ino: number, mode: number, data: Uint8Array): Uint8Array {
  const nameBytes = new TextEncoder().encode(name);
  const nlink = (mode & 0o170000) === S_IFDIR ? 2 : 1;
  const fields = [ino, mode, 0, 0, nlink, 0, data.length, 0, 0, 0, 0, nameBytes.length + 1, 0];
  const header = '070701' + fields.map(hex8).join('');
  const dataStart = align4(HEADER + nameBytes.length + 1);
  const out = new Uint8Array(align4(dataStart + data.length));
  for (let i = 0; i < header.length; i++) out[i] = header.charCodeAt(i);
  out.set(nameBytes, HEADER);
  out.set(data, dataStart);
  return out;
}

/** A copy of `initrd` with `files` added (replacing nothing: an existing path is an error). */
export function appendToInitrd(initrd: Uint8Array, files: readonly InitrdFile[]): Uint8Array {
  const { entries, trailer } = readInitrdEntries(initrd);
  const names = new Map(entries.map((e) => [e.name, e.mode]));
  let ino = entries.reduce((m, e) => Math.max(m, e.ino), 0);
  const parts: Uint8Array[] = [initrd.subarray(0, trailer)];
  for (const f of files) {
    if (!f.path.startsWith('/') || f.path.endsWith('/') || f.path.split('/').some((p, i) => i > 0 && (p === '' || p === '.' || p === '..'))) {
      throw new InitrdError(`initrd: ${JSON.stringify(f.path)} is not an absolute path to a file`);
    }
    const name = f.path.slice(1);
    if (names.has(name)) throw new InitrdError(`initrd: ${f.path} already exists`);
    const dirs = name.split('/').slice(0, -1);
    for (let i = 1; i <= dirs.length; i++) {
      const dir = dirs.slice(0, i).join('/');
      const mode = names.get(dir);
      if (mode === undefined) {
        parts.push(entryBytes(dir, ++ino, S_IFDIR | 0o755, new Uint8Array(0)));
        names.set(dir, S_IFDIR | 0o755);
      } else if ((mode & 0o170000) !== S_IFDIR) throw new InitrdError(`initrd: /${dir} is not a directory`);
    }
    const mode = S_IFREG | ((f.mode ?? 0o755) & 0o7777);
    parts.push(entryBytes(name, ++ino, mode, f.data));
    names.set(name, mode);
  }
  parts.push(entryBytes('TRAILER!!!', 0, 0, new Uint8Array(0)));
  const total = parts.reduce((n, p) => n + p.length, 0);
  const out = new Uint8Array(total);
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}
