/**
 * Long-running commands (`cubist coordinator`, `cubist worker`) stop when their parent goes away. Started through a
 * launcher (`npx cubist coordinator` is npm, then sh, then node), a plain `kill` of the launcher's pid ends npm
 * without passing the signal on, and the real process went on, re-parented to init, silently. Node reads the
 * parent pid afresh each time `process.ppid` is read, so a change is seen within `everyMs`. A process started
 * with init as its parent (a daemon, a container's pid 1) is not watched. The parent is the one the process had when
 * this module loaded, so a launcher that dies while the command is still starting is noticed too.
 */

const LAUNCH_PARENT = process.ppid;

/** Calls `onOrphaned` once when the parent process changes; returns a function that stops watching. */
export function watchParent(onOrphaned: () => void, everyMs = 1000): () => void {
  const parent = LAUNCH_PARENT;
  if (parent <= 1) return () => undefined;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    onOrphaned();
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
