import Foundation
import Testing
import TillModel
@testable import TillCore
@testable import TillStore

extension StoreServerTests {
@Suite struct WatchTests {
    @Test func theScreenShowsEachTillTodayAndMarksTheSilentOnes() {
        let s = WatchSnapshot(tills: [
            .init(shop: "berlin-1", till: "till-1", day: "2026-11-25", sales: 12, netCents: 48_250, unknown: 1, silentFor: 14, unresolved: 1),
            .init(shop: "berlin-1", till: "till-2", day: "2026-11-25", sales: 0, netCents: 0, unknown: 0, silentFor: 4_000, unresolved: 0),
            .init(shop: "nyc-1", till: "till-3", day: "2026-11-24", sales: 3, netCents: -250, unknown: 0, silentFor: nil, unresolved: 2),
        ], parked: 1, at: "2026-11-25 21:40:00 UTC")
        #expect(WatchScreen.lines(s, width: 100, height: 12) == [
            "till-sync watch · store time 2026-11-25 21:40:00 UTC · today in each shop's time zone",
            "",
            "shop        till        day          sales           net  unknown  last push          open",
            "berlin-1    till-1      2026-11-25      12        482.50        1  14 s ago              1",
            "berlin-1    till-2      2026-11-25       0          0.00        0  1 h 6 min ago !       0",
            "nyc-1       till-3      2026-11-24       3         -2.50        0  never !               2",
            "",
            "  berlin-1: 482.50 today on 2 tills",
            "  nyc-1: -2.50 today on 1 till",
            "  all shops: 480.00 · 3 open · 2 not heard from · 1 events parked",
            "",
            "q quit · r refresh now",
        ])
        // A window too small: the key line stays, the rest says it was cut; no line is wider than the window.
        let small = WatchScreen.lines(s, width: 40, height: 5)
        #expect(small.count == 5 && small.last == "q quit · r refresh now" && small[3].hasPrefix("… 3 tills"))
        #expect(small.allSatisfy { $0.count <= 40 })
    }

    @Test func theSnapshotIsTheStoresTodayPerTill() async throws {
        let s = try await TestStore(); defer { s.cleanup() }
        let a = try await s.addTill("A"), b = try await s.addTill("B")
        _ = try await s.addTill("C")
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let ja = try Journal(path: a.journalPath), jb = try Journal(path: b.journalPath)
        try ja.insertSettled([(.sale, .approved, 1_000, 100, "x", now), (.sale, .unknown, 500, 0, "x", now), (.sale, .approved, 9_999, 0, "old", now - 3 * 86_400_000)])
        try jb.insertSettled([(.cancel, .approved, 250, 0, "y", now)])
        for t in [a, b] { _ = try await Sync(journalPath: t.journalPath, address: t.address).pushOnce() }
        let snap = try await BackOffice(address: try await s.office()).snapshot()
        let byTill = Dictionary(uniqueKeysWithValues: snap.tills.map { ($0.till, $0) })
        #expect(byTill["A"]?.netCents == 1_100 && byTill["A"]?.sales == 1 && byTill["A"]?.unknown == 1 && byTill["A"]?.unresolved == 1)
        #expect(byTill["B"]?.netCents == -250)
        #expect(byTill["C"]?.silentFor == nil && byTill["A"]?.silentFor.map { $0 < 60 } == true)
    }
}
}
