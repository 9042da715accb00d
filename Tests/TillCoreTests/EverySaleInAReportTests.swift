import Foundation
import Testing
@testable import TillCore
import TillIO
import TillProtocol

/// Every payment the terminal charged is in exactly one report (the commands run off the cooperative pool's threads,
/// through the async helpers, so that other tests' deadlines are not starved), and an export's `paid` adds up to the money that moved.
/// Each test failed on the code before its fix.
@Suite(.serialized) struct EverySaleInAReportTests {
    /// Sales taken with no batch open on till's side were in no report and no export (`till report` exited 2).
    @Test func aSaleWithNoShiftOpenIsInTheReport() async throws {
        let dir = TempDir("till-nobatch"); defer { dir.cleanup() }
        let common = ["--journal", dir.path + "/journal.sqlite", "--sim-speed", "0"]
        #expect(try await runTill(["sale", "--amount", "100.00"] + common).status == 0)
        let report = try await runTillCapturing(["report", "--format", "json"] + common)
        #expect(report.status == 0, "\(report.errors)")
        let json = try #require(try? JSONSerialization.jsonObject(with: Data(report.output.utf8)) as? [String: Any])
        #expect((json["sales"] as? [String: Int])?["cents"] == 10000)
        let export = try await runTillCapturing(["export", "--format", "csv"] + common)
        #expect(export.status == 0)
        #expect(export.output.contains("100.00"))
    }

    /// A close that timed out, settled by its late answer while the next sale was with the terminal: the Z report was
    /// frozen without that sale (the export of the same batch had it).
    @Test func aZReportHoldsASaleSettledAfterALateCloseAnswer() async throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let transport = FileDropTransport(directory: dir.path + "/drop")
        // A minute for every answer the peer gives (the open's, the sale's), however slow the machine.
        let c = TillController(transport: transport, journal: try Journal(path: dir.path + "/journal.sqlite"), caller: testCaller,
                               timeoutMs: 60_000)
        try await c.start()
        let peer = ScriptedPeer(dir.path + "/drop")
        guard try await peer.opensBatch("Morning", on: c) else { await c.shutdown(); return }
        // The close gets no answer in its time. Its timeout is made to come once the peer has claimed it, as the
        // controller's timer would: a short timer could withdraw it unclaimed on a loaded machine (never sent, not
        // unknown).
        let close = Task { await c.perform(.batch(BatchRequest(command: .close)), hooks: true, timeoutMs: 600_000) }
        guard let closeRequest = await peer.nextRequest() else { Issue.record("no close request"); await c.shutdown(); return }
        #expect(await eventuallyAsync { await c.inFlight()?.entry.state == .sent })
        await c.timedOut(closeRequest.id)
        #expect(await close.value.journalEntry?.state == .unknown)
        // The next sale; while it is with the terminal, the close's late answer arrives, then the sale's. The sale
        // waits as long as a real one would: only the close is meant to time out, however slow the machine.
        let paying = Task { await c.perform(sale(2500), hooks: true, timeoutMs: 60_000) }
        guard let s = await peer.nextRequest() else { Issue.record("no sale request"); await c.shutdown(); return }
        try peer.drop(MisbehavingTerminalTests.ok.replacingOccurrences(of: "Transaction%20successful.", with: "Batch%20closed")
                      + "&action=batch&command=close&batchName=Morning", as: closeRequest.id)
        #expect(await eventuallyAsync { await c.batch().isOpen == false })
        try peer.drop(peer.answers(to: s.url)[0], as: s.id)
        #expect(await paying.value.journalEntry?.state == .approved)
        let z = try #require(try c.journal.reportBatch(.idOrName("Morning")))
        #expect(!z.isOpen)
        let report = try c.journal.report(for: z)
        #expect(report.kind == .closing)
        #expect(report.sales == Tally(count: 1, cents: 2500))
        #expect(report.unknown.count == 0)
        await c.shutdown()
    }

    /// The export listed look-ups with `paid` set and a declined sale with `paid` equal to its amount: an accountant
    /// summing `paid` counted money twice. Only what moved money has a `paid`; the currency is its ISO code.
    @Test func theExportsPaidAddsUpToTheMoneyThatMoved() async throws {
        let dir = TempDir("till-paid"); defer { dir.cleanup() }
        let common = ["--journal", dir.path + "/journal.sqlite", "--sim-speed", "0"]
        #expect(try await runTill(["batch", "open", "--name", "Paid"] + common).status == 0)
        let sale = try await runTill(["sale", "--amount", "20.00", "--tip", "2.00", "--json"] + common)
        #expect(sale.status == 0)
        #expect(try await runTill(["sale", "--amount", "6.66"] + common).status == 1)      // declined
        let stan = try #require(sale.output.range(of: #""referenceNumber" *: *"([0-9]{6})""#, options: .regularExpression)
            .map { String(sale.output[$0].suffix(7).prefix(6)) })
        #expect(try await runTill(["refund", "--reference", stan, "--amount", "5"] + common).status == 0)
        let export = try await runTillCapturing(["export", "--format", "csv"] + common)
        #expect(export.status == 0)
        let rows = export.output.split(separator: "\r\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        let header = try #require(rows.first)
        let paid = try #require(header.firstIndex(of: "paid")), currency = try #require(header.firstIndex(of: "currency"))
        let state = try #require(header.firstIndex(of: "state"))
        let body = rows.dropFirst()
        let sum = body.compactMap { Money(parsing: $0[paid]) }.reduce(0) { $0 + $1 }
        #expect(sum == 1700, "paid column: \(body.map { $0[paid] })")
        #expect(body.filter { $0[state] != "approved" }.allSatisfy { $0[paid] == "0.00" })
        #expect(body.allSatisfy { $0[currency] == "EUR" })
    }
}

private extension Money {
    init?(parsing s: String) {
        let negative = s.hasPrefix("-")
        guard let m = try? Money.parse(negative ? String(s.dropFirst()) : s) else { return nil }
        self.init(cents: negative ? -m.cents : m.cents)
    }
}

private func + (a: Int, b: Money) -> Int { a + b.cents }
