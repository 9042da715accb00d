import Synchronization

/// A `Mutex` shared by reference. `Mutex` is the lock everywhere else (a stored property or a `static let`), but it
/// is non-copyable, so a local one cannot be captured by an escaping closure (a signal handler, a thread, a task's
/// callback): such a value lives in this box instead.
public final class Locked<Value>: Sendable {
    private let mutex: Mutex<Value>
    public init(_ value: consuming sending Value) { mutex = Mutex(value) }
    public func withLock<R, E: Error>(_ body: (inout sending Value) throws(E) -> sending R) throws(E) -> sending R {
        try mutex.withLock(body)
    }
}
