#include "till_executor.h"
#include <stdatomic.h>
#include <stdint.h>

// The Swift runtime's hooks (swift/Runtime/Concurrency.h, exported by libswift_Concurrency), with
// the Swift calling convention.
#define SWIFT_CC __attribute__((swiftcall))
typedef struct TillSwiftJob TillSwiftJob;
typedef struct { void *identity; uintptr_t implementation; } TillSerialExecutorRef;

typedef SWIFT_CC void (*till_enqueue_original)(TillSwiftJob *job);
typedef SWIFT_CC void (*till_enqueue_delay_original)(unsigned long long delay, TillSwiftJob *job);
typedef SWIFT_CC void (*till_enqueue_deadline_original)(long long sec, long long nsec, long long tsec, long long tnsec,
                                                        int clock, TillSwiftJob *job);

extern SWIFT_CC void (*swift_task_enqueueGlobal_hook)(TillSwiftJob *job, till_enqueue_original original);
extern SWIFT_CC void (*swift_task_enqueueGlobalWithDelay_hook)(unsigned long long delay, TillSwiftJob *job,
                                                               till_enqueue_delay_original original);
extern SWIFT_CC void (*swift_task_enqueueGlobalWithDeadline_hook)(long long sec, long long nsec, long long tsec,
                                                                  long long tnsec, int clock, TillSwiftJob *job,
                                                                  till_enqueue_deadline_original original);
extern SWIFT_CC void swift_job_run(TillSwiftJob *job, TillSerialExecutorRef executor);
extern SWIFT_CC void swift_get_time(long long *seconds, long long *nanoseconds, int clock);

// libdispatch (linked into every Swift program on Linux), declared here so that this C target needs
// no header search path into the toolchain.
typedef void *till_dispatch_queue_t;
typedef uint64_t till_dispatch_time_t;
extern till_dispatch_queue_t dispatch_get_global_queue(intptr_t identifier, uintptr_t flags);
extern void dispatch_async_f(till_dispatch_queue_t queue, void *context, void (*work)(void *));
extern void dispatch_after_f(till_dispatch_time_t when, till_dispatch_queue_t queue, void *context, void (*work)(void *));
extern till_dispatch_time_t dispatch_time(till_dispatch_time_t when, int64_t delta);

#define TILL_DISPATCH_QUEUE_OVERCOMMIT 0x2ul   // private flag of dispatch_get_global_queue
#define TILL_QOS_CLASS_DEFAULT 0x15
#define TILL_DISPATCH_TIME_NOW 0ull

static till_dispatch_queue_t till_queue;
static atomic_ulong till_jobs;

static void till_run_job(void *job) {
    TillSerialExecutorRef generic = { 0, 0 };
    swift_job_run((TillSwiftJob *)job, generic);
}

static SWIFT_CC void till_enqueue(TillSwiftJob *job, till_enqueue_original original) {
    (void)original;
    atomic_fetch_add_explicit(&till_jobs, 1, memory_order_relaxed);
    dispatch_async_f(till_queue, job, till_run_job);
}

static void till_after(int64_t delay_ns, TillSwiftJob *job) {
    atomic_fetch_add_explicit(&till_jobs, 1, memory_order_relaxed);
    if (delay_ns <= 0) { dispatch_async_f(till_queue, job, till_run_job); return; }
    dispatch_after_f(dispatch_time(TILL_DISPATCH_TIME_NOW, delay_ns), till_queue, job, till_run_job);
}

static SWIFT_CC void till_enqueue_delay(unsigned long long delay, TillSwiftJob *job, till_enqueue_delay_original original) {
    (void)original;
    till_after(delay > (unsigned long long)INT64_MAX ? INT64_MAX : (int64_t)delay, job);
}

static SWIFT_CC void till_enqueue_deadline(long long sec, long long nsec, long long tsec, long long tnsec, int clock,
                                           TillSwiftJob *job, till_enqueue_deadline_original original) {
    (void)tsec; (void)tnsec; (void)original;
    // The deadline on the clock it names, read by the runtime's own clock function.
    long long now_sec = 0, now_nsec = 0;
    swift_get_time(&now_sec, &now_nsec, clock);
    long double delta = ((long double)sec - (long double)now_sec) * 1e9L + ((long double)nsec - (long double)now_nsec);
    till_after(delta >= (long double)INT64_MAX ? INT64_MAX : (int64_t)delta, job);
}

static void till_nothing(void *unused) { (void)unused; }

int till_install_executor(void) {
    if (till_queue) return 1;
    till_queue = dispatch_get_global_queue(TILL_QOS_CLASS_DEFAULT, TILL_DISPATCH_QUEUE_OVERCOMMIT);
    if (!till_queue) return 0;
    swift_task_enqueueGlobal_hook = till_enqueue;
    swift_task_enqueueGlobalWithDelay_hook = till_enqueue_delay;
    swift_task_enqueueGlobalWithDeadline_hook = till_enqueue_deadline;
    // The queue's first worker thread starts now, while the command line is read, not when the first task
    // (the journal's opening, at start-up) waits for it.
    dispatch_async_f(till_queue, 0, till_nothing);
    return 1;
}

unsigned long till_executor_jobs(void) { return atomic_load_explicit(&till_jobs, memory_order_relaxed); }
