// The environment a daemon process is started with, beside the caller's own: glibc's allocator
// settings that keep the daemon's resident memory bounded. They act only when set before the
// process starts, so every launcher of a daemon process (`docfix daemon serve` and `start`, the
// service unit, the container) passes them; a value the caller already set wins.

/**
 * Two arenas, and every allocation of 1 MiB or more mapped on its own and returned to the system
 * when freed. Without them each thread's arena keeps the high-water mark of the renders that passed
 * through it (measured: about 0.3–0.4 GB more resident under the load bench).
 */
export const DAEMON_MALLOC_ENV: Readonly<Record<string, string>> = {
  MALLOC_ARENA_MAX: '2',
  MALLOC_MMAP_THRESHOLD_: '1048576',
};

/** `env` with the daemon's allocator settings added where `env` does not set them. */
export function daemonEnvironment(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return { ...DAEMON_MALLOC_ENV, ...env };
}
