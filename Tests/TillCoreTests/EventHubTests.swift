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
}
