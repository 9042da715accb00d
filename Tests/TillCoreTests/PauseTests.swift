import Dispatch
import Foundation
import Synchronization
import Testing
import TillIO

/// `Pause.sleep`, the controller's and the pipe's timer (instead of `Task.sleep`, which on Linux
/// starts libdispatch's once-a-second monitor): it waits, and a cancelled task stops waiting.
///
/// The tasks here run on an executor of their own and the test waits on a semaphore, so that nothing
/// measured needs Swift's cooperative pool: the end-to-end suites, running beside these, hold both of
/// its threads (two cores) while they wait for tmux, and a test task on the pool could then start
/// tens of seconds late (seen: 36 s), which would time the pool, not the pause.
@Suite("Pause")
struct PauseTests {
    /// Runs a task's jobs on a private serial queue, off the cooperative pool.
    final class QueueExecutor: TaskExecutor, @unchecked Sendable {
        let queue = DispatchQueue(label: "till.pause-test")
        func enqueue(_ job: consuming ExecutorJob) {
            let unowned = UnownedJob(job)
            let executor = asUnownedTaskExecutor()
            queue.async { unowned.runSynchronously(on: executor) }
        }
    }

    /// Starts `body` on `QueueExecutor`; the returned semaphore is signalled when it has ended.
    func start(_ body: @escaping @Sendable () async -> Void) -> (Task<Void, Never>, DispatchSemaphore) {
        let done = DispatchSemaphore(value: 0)
        let task = Task(executorPreference: QueueExecutor()) {
            await body()
            done.signal()
        }
        return (task, done)
    }

    /// A time written by the task and read by the test.
    final class Stamp: Sendable {
        private let ns = Mutex<UInt64>(0)
        func set() { ns.withLock { $0 = WallClock.monotonicNs() } }
        var value: UInt64 { ns.withLock { $0 } }
    }

    @Test func waitsAtLeastItsTime() {
        let started = Stamp(), ended = Stamp()
        let (_, done) = start {
            started.set()
            await Pause.sleep(nanoseconds: 30_000_000)
            ended.set()
        }
        #expect(done.wait(timeout: .now() + 60) == .success)
        #expect(ended.value - started.value >= 30_000_000)
    }

    @Test func aCancelledTaskStopsWaiting() {
        let asleep = DispatchSemaphore(value: 0)
        let (task, done) = start {
            asleep.signal()
            await Pause.sleep(nanoseconds: 3_600_000_000_000)   // an hour
        }
        #expect(asleep.wait(timeout: .now() + 60) == .success)
        usleep(20_000)   // into the pause (a cancel before it starts is the next test)
        let t0 = WallClock.monotonicNs()
        task.cancel()
        // An hour's pause ends at the cancel; a minute is a generous bound on a loaded machine.
        #expect(done.wait(timeout: .now() + 60) == .success, "an hour's pause did not end at the cancel")
        #expect(WallClock.monotonicNs() - t0 < 60_000_000_000)
    }

    @Test func cancelledBeforeItStartsDoesNotWait() {
        let (_, done) = start {
            withUnsafeCurrentTask { $0?.cancel() }
            await Pause.sleep(nanoseconds: 3_600_000_000_000)
        }
        #expect(done.wait(timeout: .now() + 60) == .success, "a cancelled task still paused")
    }
}
