import Foundation
import Testing
@testable import TillCore

@Suite struct EventHubTests {
    /// A stream made while conditions are being emitted begins with the condition current at that moment and then
    /// gets every later event once, in order (no gap, no repeat, no older condition after a newer).
    @Test func theHubsReplayIsNeverStaleNorDoubled() async throws {
        for _ in 0..<20 {
            let hub = EventHub()
            let n = 200
            let emitter = Task.detached {
                for i in 0..<n { hub.emit(.transportProblem(String(i))); if i % 7 == 0 { await Task.yield() } }
            }
            var collectors: [Task<[Int], Never>] = []
            for _ in 0..<20 {
                let s = hub.stream()
                collectors.append(Task.detached {
                    var seen: [Int] = []
                    for await e in s {
                        if case .transportProblem(let p) = e, let i = Int(p) { seen.append(i); if i == n - 1 { break } }
                    }
                    return seen
                })
                await Task.yield()
            }
            await emitter.value
            for t in collectors {
                let seen = await t.value
                #expect(!seen.isEmpty && seen.last == n - 1)
                #expect(seen == Array((seen.first ?? 0)...(n - 1)), "\(seen)")
            }
            hub.finish()
        }
    }

    /// A stream's task cancelled while events are emitted (the screen's shift-close watcher, cancelled as the till ends
    /// on a hang-up while the transport says it is ready): neither waits for the other. The cancel and the emit race on
    /// threads of their own; a deadlock leaves them stuck, and the watchdog says so instead of hanging the run.
    @Test func aStreamCancelledWhileEventsAreEmittedNeverDeadlocks() throws {
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            for _ in 0..<20_000 {
                let hub = EventHub()
                let s = hub.stream()
                let reader = Task.detached { for await _ in s {} }
                let go = DispatchSemaphore(value: 0), emitted = DispatchSemaphore(value: 0)
                Thread.detachNewThread {
                    go.wait()
                    for _ in 0..<3 { hub.emit(.transportReady("simulator")) }
                    emitted.signal()
                }
                go.signal()
                reader.cancel()
                emitted.wait()
            }
            done.signal()
        }
        #expect(done.wait(timeout: .now() + 60) == .success, "an emit and a stream's cancellation waited for each other")
    }
}
