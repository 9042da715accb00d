import Dispatch
import Foundation
import Synchronization

/// A cancellable sleep for tasks, as `try? await Task.sleep(nanoseconds:)` (it returns early when the task is
/// cancelled), whose timer is cancelled with the task: a payment's 90 s timer, cancelled by its answer, must not wake
/// an idle till 90 s later (the idle e2e test counts such wake-ups).
public enum Pause {
    private static let queue = DispatchQueue(label: "till.pause")

    public static func sleep(nanoseconds: UInt64) async {
        let waiter = Waiter()
        await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                waiter.start(c, afterNs: Int(min(nanoseconds, UInt64(Int.max / 2))))
            }
        } onCancel: {
            waiter.resume()
        }
    }

    /// Resumes its continuation once, whichever comes first: the time, or the cancellation (which may
    /// come before the continuation exists).
    private final class Waiter: Sendable {
        private struct State {
            var continuation: CheckedContinuation<Void, Never>?
            var timer: DispatchWorkItem?
            var done = false
        }
        private let state = Mutex(State())

        /// Keeps `c` and starts its timer; resumes `c` at once when the wait is already over.
        func start(_ c: CheckedContinuation<Void, Never>, afterNs ns: Int) {
            let over = state.withLock { s -> Bool in
                if s.done { return true }
                s.continuation = c
                let timer = DispatchWorkItem { [self] in resume() }
                s.timer = timer
                Pause.queue.asyncAfter(deadline: .now() + .nanoseconds(ns), execute: timer)
                return false
            }
            if over { c.resume() }
        }

        /// Ends the wait (the time came, or the task was cancelled: then its timer is cancelled too, so that it
        /// never wakes the process).
        func resume() {
            let c = state.withLock { s in
                s.timer?.cancel()
                defer { s.continuation = nil; s.timer = nil; s.done = true }
                return s.continuation
            }
            c?.resume()
        }
    }
}
