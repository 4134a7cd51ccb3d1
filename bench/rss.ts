import { readFileSync } from "node:fs";

/** VmRSS of a process in MB, 0 once it is gone. */
function rssMb(pid: number): number {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) / 1024 : 0;
  } catch {
    return 0; // the process is gone; keep the peak seen
  }
}

/** Peak VmRSS (MB) of each of `pids`, sampled every 200 ms while `during` runs. */
export async function peakRss<T>(pids: readonly number[], during: () => Promise<T>): Promise<{ value: T; rssMb: number[] }> {
  const peaks = pids.map(() => 0);
  const sample = () => pids.forEach((pid, i) => (peaks[i] = Math.max(peaks[i], rssMb(pid))));
  sample();
  const timer = setInterval(sample, 200);
  try {
    return { value: await during(), rssMb: peaks.map(Math.round) };
  } finally {
    clearInterval(timer);
    sample();
  }
}

/** CPU time (user + system) a process has used so far, in ms; 0 once it is gone. From /proc/<pid>/stat, in clock ticks (10 ms). */
export function cpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return 0;
  }
}
