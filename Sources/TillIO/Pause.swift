import Dispatch
import Foundation

/// A cancellable sleep for tasks, as `try? await Task.sleep(nanoseconds:)` (it returns early when the task is
/// cancelled), whose timer is cancelled with the task: a payment's 90 s timer, cancelled by its answer, must not wake
/// an idle till 90 s later (the idle e2e test counts such wake-ups).
public enum Pause {
    private static let queue = DispatchQueue(label: "till.pause")

    public static func sleep(nanoseconds: UInt64) async {
        let waiter = Waiter()
        await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                // The timer is cancelled with the task: a payment's 90 s timer, cancelled by its answer, must not
                // wake an idle till 90 s later.
                let timer = DispatchWorkItem { waiter.resume() }
                guard waiter.set(c, timer: timer) else { return }
                let ns = Int(min(nanoseconds, UInt64(Int.max / 2)))
                queue.asyncAfter(deadline: .now() + .nanoseconds(ns), execute: timer)
            }
        } onCancel: {
            waiter.resume()
        }
    }

    /// Resumes its continuation once, whichever comes first: the time, or the cancellation (which may
    /// come before the continuation exists).
    private final class Waiter: @unchecked Sendable {
        private let lock = NSLock()
        private var continuation: CheckedContinuation<Void, Never>?
        private var timer: DispatchWorkItem?
        private var done = false

        /// Keeps `c` and its timer; false (and `c` resumed) when the wait is already over.
        func set(_ c: CheckedContinuation<Void, Never>, timer t: DispatchWorkItem) -> Bool {
            lock.lock()
            if done { lock.unlock(); c.resume(); return false }
            continuation = c
            timer = t
            lock.unlock()
            return true
        }

        /// Ends the wait (the time came, or the task was cancelled: then its timer is cancelled too).
        func resume() {
            lock.lock()
            let c = continuation, t = timer
            continuation = nil
            timer = nil
            done = true
            lock.unlock()
            t?.cancel()
            c?.resume()
        }
    }
}
