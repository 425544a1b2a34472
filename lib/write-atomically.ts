/**
 * Writes a small state file so that a crash or power cut leaves either the old content or the new, never a mix: a
 * temporary file in the same folder, fsynced, renamed over the old one, then the folder entry synced too.
 */
import fs from 'node:fs';
import path from 'node:path';

export function writeFileAtomically(file: string, data: string, mode = 0o600): void {
  const tmp = `${file}.${process.pid}.tmp`;
  const fd = fs.openSync(tmp, 'w', mode);
  try {
    fs.writeFileSync(fd, data);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, file);
  // Without the folder's fsync the rename may not survive a power cut.
  try {
    const dir = fs.openSync(path.dirname(file), 'r');
    fs.fsyncSync(dir);
    fs.closeSync(dir);
  } catch {
    // Some filesystems refuse fsync on a directory; the file itself is synced.
  }
}
