// till's global executor for Swift concurrency (issue 11: an idle till does not wake up).
//
// On Linux, Swift concurrency runs its jobs on libdispatch's global (non-overcommit) root queues.
// The first worker thread those queues start also starts libdispatch's worker-pool monitor: a timer
// on the manager thread that fires once a second for the life of the process, whether anything runs
// or not. That one wake-up a second doubled an idle till's wake-ups (the clock's tick is the other).
//
// `till_install_executor()` points the runtime's enqueue hooks at dispatch's overcommit root queue,
// which runs the same jobs on the same kind of worker threads, but whose workers are not monitored:
// no timer. Delayed jobs (Task.sleep) go through `dispatch_after` onto the same queue. Call it first
// thing in `main`, before any task starts.
#ifndef TILL_EXECUTOR_H
#define TILL_EXECUTOR_H

/// Installs the hooks (once; later calls do nothing). Returns 1 when the hooks are installed.
int till_install_executor(void);

/// How many jobs went through the hooks (for tests: proves the hooks are in use).
unsigned long till_executor_jobs(void);

#endif
