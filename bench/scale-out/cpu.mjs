// CPU time of the benchmark's processes, to say where a round's time went on a machine whose
// cores they all share. Linux only (/proc); elsewhere every figure is undefined.
import { readFileSync } from 'node:fs';

/** Clock ticks per second of /proc/<pid>/stat's times (USER_HZ: 100 on Linux). */
const TICKS_PER_SECOND = 100;

/** CPU seconds (user + system) process `pid` has used so far, or undefined. */
export function cpuSeconds(pid) {
  if (pid === undefined) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces; the fields after its ')' are plain.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

/** CPU seconds the whole machine has spent busy so far (every process, every core), or NaN. */
export function machineBusySeconds() {
  try {
    const cpu = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1);
    const [user, nice, system, , , irq, softirq, steal] = cpu.map(Number);
    return (user + nice + system + irq + softirq + steal) / TICKS_PER_SECOND;
  } catch {
    return Number.NaN;
  }
}

/** CPU seconds this process has used so far. */
export function ownCpuSeconds() {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
}

/**
 * Takes a reading of every group of processes (`groups`: name → pids, or a function answering
 * CPU seconds) now; `since()` answers the CPU seconds each group used since the reading.
 */
export function cpuReading(groups) {
  const read = () =>
    Object.fromEntries(
      Object.entries(groups).map(([name, source]) => [
        name,
        typeof source === 'function'
          ? source()
          : source.reduce((sum, pid) => sum + (cpuSeconds(pid) ?? Number.NaN), 0),
      ]),
    );
  const start = read();
  return {
    since() {
      const now = read();
      return Object.fromEntries(Object.keys(groups).map((name) => [name, now[name] - start[name]]));
    },
  };
}
