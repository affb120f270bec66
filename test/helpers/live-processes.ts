import { readdirSync, readFileSync } from 'node:fs';

/** State and process group of a process from /proc, or undefined when it is gone. */
function statOf(pid: number): { state: string; pgid: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { state: fields[0] ?? '', pgid: Number(fields[2]) };
  } catch {
    return undefined;
  }
}

/** True while `pid` runs (a zombie waiting to be reaped counts as gone). Linux only. */
export function isLiveProcess(pid: number): boolean {
  const stat = statOf(pid);
  return stat !== undefined && stat.state !== 'Z' && stat.state !== 'X';
}

/** Live processes of a process group, from /proc. Linux only. */
export function liveMembers(pgid: number): number[] {
  const members: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    if (statOf(pid)?.pgid === pgid && isLiveProcess(pid)) members.push(pid);
  }
  return members;
}
