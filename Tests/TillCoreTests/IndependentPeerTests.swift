import Foundation
import Testing
@testable import TillCore
import TillIO
import TillProtocol
import TillSimulator

/// The built `till` binary, one process per command as a script runs it, against an independent terminal peer
/// (`Tests/peers/independent_peer.py`, not till's simulator) through the pipe transport. The peer keeps its own ledger
/// of what it charged and misbehaves (failures that name no payment, approvals of other payments, repeats of earlier
/// answers, look-up answers without a reference). Seeds 4 to 6 add issue 33's timings (`PEER_PLAN`): a decline the
/// terminal overturns 1.5 s later with its own approval, answers that come after the command gave up waiting, and an
/// answer sent twice; an answer the bridge could not deliver before till stopped it comes at the next command's start.
/// After every command: the cashier is never told a final DECLINED for a payment the ledger charged ("not charged so
/// far" at most). At the end: every report and every export agree with the ledger to the cent.
@Suite(.serialized) struct IndependentPeerTests {
    static let peer: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<2 { url.deleteLastPathComponent() }
        return url.path + "/peers/independent_peer.py"
    }()

    struct Ledger {
        var transactions: [[String: Any]]
        /// What the cards paid, net of refunds, in cents.
        var netCents: Int {
            transactions.reduce(0) { sum, t in
                guard t["approved"] as? Bool == true else { return sum }
                let amount = t["amount"] as? Int ?? 0, tip = t["tip"] as? Int ?? 0
                return t["kind"] as? String == "refund" ? sum - amount : sum + amount + tip
            }
        }
        func charged(ctid: String) -> Bool {
            transactions.contains { $0["ctid"] as? String == ctid && $0["approved"] as? Bool == true }
        }
        /// Approved sales with money left to refund: (STAN, cents left).
        var refundable: [(String, Int)] {
            transactions.compactMap { t in
                guard t["kind"] as? String == "sale", t["approved"] as? Bool == true, let stan = t["stan"] as? String else { return nil }
                let left = (t["amount"] as? Int ?? 0) + (t["tip"] as? Int ?? 0) - (t["refunded"] as? Int ?? 0)
                return left > 0 ? (stan, left) : nil
            }
        }
    }

    static func ledger(_ path: String) throws -> Ledger {
        guard FileManager.default.fileExists(atPath: path) else { return Ledger(transactions: []) }
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        return Ledger(transactions: json["transactions"] as? [[String: Any]] ?? [])
    }

    static func money(_ cents: Int) -> String { Money(cents: cents).description }

    @Test(arguments: [1, 2, 3, 4, 5, 6])
    func aRandomSessionAgreesWithThePeersLedger(seed: Int) async throws {
        let timings = seed > 3
        let dir = TempDir("till-peer"); defer { if ProcessInfo.processInfo.environment["TILL_PEER_KEEP"] == nil { dir.cleanup() } else { print("kept", dir.path) } }
        let ledgerPath = dir.path + "/ledger.json"
        // The bridge gets an allow-listed environment, so its settings go on its command line.
        let env: [String: String] = [:]
        func bridge(_ plan: String) -> String {
            "pipe:PEER_LEDGER='\(ledgerPath)' PEER_SEED=\(seed) PEER_PLAN=\(plan) python3 '\(Self.peer)'"
        }
        // Without a plan the peer answers every request at once, so the timeout is only a bound: a minute, so that a
        // Python bridge slow to start on a loaded machine never leaves a payment the peer charged unknown. A late
        // plan's answers come 6 s after their request, after a timeout of 2 s.
        let journal = ["--journal", dir.path + "/journal.sqlite"]
        var rng = SeededRandom(seed: UInt64(seed))
        var failures: [String] = []
        // Off the cooperative pool's threads (runTillCapturing's async form): the other tests' deadlines run there.
        func till(_ args: [String], plan: String = "") async throws -> (status: Int32, out: String, err: String) {
            let common = journal + ["--transport", bridge(plan), "--timeout", plan == "late" ? "2" : "60"]
            let r = try await runTillCapturing(args + common, environment: env)
            #expect(!r.signalled, "till \(args) was killed by a signal")
            return (r.status, r.output, r.errors)
        }
        /// What a person does after an unknown outcome, by the guide: `till recover` (its bridge first delivers what
        /// the last one could not; it asks the terminal about what is still unknown), then each entry left to a person
        /// (unknown, or an answer to review) settled as the terminal's own record says: charged when the ledger holds
        /// that transaction approved, else not charged.
        func recoverLikeAPerson() async throws {
            _ = try await till(["recover"])
            let listed = try await till(["journal", "--unresolved", "--json"]).out
            let entries = (try? JSONSerialization.jsonObject(with: Data(listed.utf8)) as? [[String: Any]]) ?? []
            let ledger = try Self.ledger(ledgerPath)
            for e in entries {
                guard let id = e["id"] as? Int else { continue }
                let ctid = e["clientTransactionId"] as? String ?? ""
                // The peer's own answers name their payment (the strays name someone else's): each settles it by
                // itself, whenever it comes, or recover's look-up does. None is left to a person.
                if ctid.hasPrefix("s\(seed)-") {
                    failures.append("entry \(id) (\(ctid), \(e["state"] ?? "")) was left to a person: \(e["note"] ?? "")")
                }
                let txid = (e["response"] as? [String: Any])?["transactionId"] as? String ?? ""
                let charged = ledger.transactions.contains { t in
                    t["approved"] as? Bool == true
                        && ((!ctid.isEmpty && t["ctid"] as? String == ctid) || (!txid.isEmpty && t["transactionId"] as? String == txid))
                }
                let r = try await till(["resolve", String(id), charged ? "--charged" : "--not-charged"])
                #expect(r.status == 0, "resolve \(id): \(r.out) \(r.err)")
            }
        }
        var shifts = 0
        // The first sales come before any shift is opened: till files them under a batch of their own.
        for step in 0..<24 {
            let roll = rng.next(100)
            if step > 3 && roll < 8 {
                shifts += 1
                if shifts > 1 { _ = try await till(["batch", "close"]) }
                #expect(try await till(["batch", "open", "--name", "Shift \(shifts)"]).status == 0)
            } else if roll < 30, let pick = try Self.ledger(ledgerPath).refundable.randomElement(using: &rng) {
                let cents = rng.next(4) == 0 ? pick.1 + 100 : 1 + rng.next(pick.1)
                if try await till(["refund", "--reference", pick.0, "--amount", Self.money(cents)]).status == 3 {
                    try await recoverLikeAPerson()
                }
            } else {
                let ctid = "s\(seed)-\(step)"
                let timing = timings ? rng.next(100) : 100
                let plan = timing < 20 ? "correct" : timing < 35 ? "late" : timing < 45 ? "twice" : ""
                // The peer declines amounts that are multiples of 0.07; "correct" then charges them after all.
                let cents = plan == "correct" ? 7 * (15 + rng.next(1_400)) : 100 + rng.next(9_900)
                var args = ["sale", "--amount", Self.money(cents), "--client-transaction-id", ctid]
                if rng.next(3) == 0 { args += ["--tip", Self.money(rng.next(500))] }
                let r = try await till(args, plan: plan)
                if r.status == 1, (try? Self.ledger(ledgerPath))?.charged(ctid: ctid) == true, !r.out.contains("Not charged so far") {
                    failures.append("step \(step): the cashier was told DECLINED for \(ctid), which the peer charged:\n\(r.out)")
                }
                if r.status == 3 {
                    // Unknown, or not sent for an earlier unknown.
                    try await recoverLikeAPerson()
                }
            }
        }
        // A last sale (its bridge delivers whatever an earlier one could not), then recovery.
        _ = try await till(["sale", "--amount", "1.00", "--client-transaction-id", "s\(seed)-last"])
        try await recoverLikeAPerson()
        let recovered = try await till(["recover"])
        #expect(recovered.status == 0, "\(recovered.out) \(recovered.err)")
        #expect(failures.isEmpty, "\(failures)")

        // Every report and every export, over every batch the journal knows, against the ledger.
        let batches = try #require(try JSONSerialization.jsonObject(with: Data(try await till(["batches", "--json"]).out.utf8)) as? [[String: Any]])
        var reported = 0, paid = 0
        for b in batches {
            let id = try #require(b["id"] as? String)
            let report = try await till(["report", "--batch", id, "--format", "json"])
            #expect(report.status == 0, "\(report.err)")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(report.out.utf8)) as? [String: Any])
            reported += json["netCents"] as? Int ?? 0
            #expect((json["unknown"] as? [String: Int])?["count"] == 0, "batch \(id) has payments of unknown outcome")
            let export = try await till(["export", "--batch", id, "--format", "json"])
            #expect(export.status == 0)
            let exported = try #require(try JSONSerialization.jsonObject(with: Data(export.out.utf8)) as? [String: Any])
            for row in exported["transactions"] as? [[String: String]] ?? [] {
                let text = row["paid"] ?? "", negative = text.hasPrefix("-")
                let m = try Money.parse(negative ? String(text.dropFirst()) : text)
                paid += negative ? -m.cents : m.cents
            }
        }
        let truth = try Self.ledger(ledgerPath).netCents
        #expect(reported == truth, "reports say \(Self.money(reported)), the peer charged \(Self.money(truth))")
        #expect(paid == truth, "exports' paid says \(Self.money(paid)), the peer charged \(Self.money(truth))")
        #expect(batches.count >= 1)
    }
}

/// TillSimulator's SplitMix64 (the same numbers for the same seed, on every machine) as a generator.
struct SeededRandom: RandomNumberGenerator {
    var inner: SplitMix64
    init(seed: UInt64) { inner = SplitMix64(state: seed) }
    mutating func next() -> UInt64 { inner.next() }
    mutating func next(_ n: Int) -> Int { Int(next() % UInt64(n)) }
}
