/** A process's peak resident set (VmHWM of /proc/<pid>/status) in MB; NaN once the process is gone. */
import fs from 'node:fs';

export function vmHwmMb(pid: number): number {
  try {
    const m = /^VmHWM:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}
