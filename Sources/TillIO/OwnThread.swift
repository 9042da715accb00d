#if canImport(Glibc)
import Glibc
#endif

/// Starts `body` on a new POSIX thread at once (detached): for work that may block (wait for another thread), which
/// must not hold one of the concurrency pool's few threads, and that should start now rather than when the pool has
/// a thread free (on a two-core till the pool's second thread is made on first use, after a hop through dispatch).
/// Returns false when no thread could be made; `body` has then not run.
@discardableResult
public func startThreadOfItsOwn(stackSize: Int = 1 << 20, _ body: @escaping @Sendable () -> Void) -> Bool {
    var attr = pthread_attr_t()
    pthread_attr_init(&attr)
    defer { pthread_attr_destroy(&attr) }
    pthread_attr_setdetachstate(&attr, Int32(PTHREAD_CREATE_DETACHED))
    pthread_attr_setstacksize(&attr, stackSize)
    let arg = Unmanaged.passRetained(ThreadBody(body)).toOpaque()
    var thread = pthread_t()
    let made = pthread_create(&thread, &attr, { raw in
        if let raw { Unmanaged<ThreadBody>.fromOpaque(raw).takeRetainedValue().body() }
        return nil
    }, arg)
    if made != 0 { Unmanaged<ThreadBody>.fromOpaque(arg).release() }
    return made == 0
}

private final class ThreadBody {
    let body: @Sendable () -> Void
    init(_ body: @escaping @Sendable () -> Void) { self.body = body }
}
