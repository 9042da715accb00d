import Dispatch
import Foundation
import Synchronization
import TillCore
import TillTerminal

/// SIGTERM and SIGHUP for the headless commands: a watcher thread waits on `SignalPipe`; when one
/// arrives the controller shuts down (the entry in flight is journaled `unknown`, the pipe bridge's
/// process group is stopped) and the process then ends as the signal would have ended it.
/// The UI does the same from its event loop (`Runtime` returns `.signal`).
///
/// Several shutdowns may run at once (the signal's, and the command's own once its wait ends); the
/// one that finds the bridge stops it, so the process ends only when every shutdown has returned.
enum Termination {
    private static let target = Mutex<TillController?>(nil)
    private static let started = Mutex(false)
    private static let stopping = Mutex(false)
    private static let active = NSCondition()
    nonisolated(unsafe) private static var running = 0

    /// Routes SIGTERM and SIGHUP to the watcher (once per process). Call before anything is journaled.
    static func install() {
        let first = started.withLock { s -> Bool in defer { s = true }; return !s }
        guard first else { return }
        SignalPipe.install([SIGTERM, SIGHUP])
        let t = Thread {
            let sig = SignalPipe.wait()
            begin()
            if let controller = target.withLock({ $0 }) {
                let done = DispatchSemaphore(value: 0)
                Task.detached {
                    await shutdown(controller)
                    done.signal()
                }
                done.wait()
                waitForShutdowns()
                printToStandardError("till: stopped by signal \(sig); anything in flight is journaled as unknown (see `till journal`).")
            }
            SignalPipe.terminate(as: sig, cleanUp: Journal.closeAll)
        }
        t.name = "till-signals"
        t.start()
    }

    /// The controller to shut down when a signal arrives.
    static func watch(_ controller: TillController) {
        install()
        target.withLock { $0 = controller }
    }

    /// Says a stop is under way (a signal, a second Ctrl-C): `exit` then waits for it instead of
    /// ending the process while the bridge is still being stopped.
    static func begin() { stopping.withLock { $0 = true } }

    /// `controller.shutdown()`, counted, so the process is not ended while one is still stopping the bridge.
    static func shutdown(_ controller: TillController) async {
        count(+1)
        await controller.shutdown()
        count(-1)
    }

    private static func count(_ d: Int) {
        active.lock(); running += d; active.broadcast(); active.unlock()
    }

    static func waitForShutdowns() {
        active.lock()
        while running > 0 { active.wait() }
        active.unlock()
    }

    /// Exits with `code` once every shutdown has returned; if a stop is under way, that path ends the process.
    static func exit(_ code: Int32) -> Never {
        if stopping.withLock({ $0 }) { while true { pause() } }
        waitForShutdowns()
        Foundation.exit(code)
    }
}
