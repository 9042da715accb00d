import Foundation
import TillProtocol
import TillSimulator

/// The protocol benchmarks: see BENCHMARKS.md.
///
/// Decode throughput of `CallbackResponse.decode` on a corpus of varied callback URLs (approved,
/// declined, sloppy), side by side in one run with Foundation's `URLComponents(string:)` +
/// `queryItems` (compared on the URLs it accepts only) and with Python's `urllib.parse.parse_qsl`
/// (timed inside python3 with time.perf_counter). Best of several rounds each.
func protocolBench() async throws {
    let size = Int(ProcessInfo.processInfo.environment["TILL_BENCH_CORPUS"] ?? "") ?? 20_000
    let rounds = 11
    let tagged = CallbackCorpus.make(count: size, seed: 0x5EED)
    // The corpus goes to a file, and every contender reads that same file back, one URL a line:
    // Swift and Python alike get freshly read strings, laid out as a reader would lay them out.
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("till-bench-\(getpid())")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let corpusFile = dir.appendingPathComponent("corpus.txt")
    try Data((tagged.map(\.url).joined(separator: "\n") + "\n").utf8).write(to: corpusFile)
    let corpus = try String(contentsOf: corpusFile, encoding: .utf8).split(separator: "\n").map { String($0) }
    precondition(corpus.count == tagged.count, "a corpus URL holds a line break")

    let bytes = corpus.reduce(0) { $0 + $1.utf8.count }
    print("  corpus: \(corpus.count) callback URLs, \(bytes) bytes (mean \(bytes / corpus.count) B), seed 0x5EED")
    var kinds: [String: Int] = [:]
    for t in tagged { kinds[t.kind, default: 0] += 1 }
    print("    " + kinds.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", "))

    // The full decode: every field kept, typed amounts, date, message code, card masking, warnings.
    // The fields' own strings are made when read (`fields[i]`, `r["name"]`, the typed accessors);
    // `fields.count` reads none, so this times the decode, not the reading (see `tillAll` below).
    func till(_ urls: [String]) -> Int {
        var n = 0
        for u in urls { if let r = try? CallbackResponse.decode(u) { n &+= r.fields.count } }
        return n
    }
    // For comparison only: the decode plus every field's name and value made as a String.
    func tillAll(_ urls: [String]) -> Int {
        var n = 0
        for u in urls { if let r = try? CallbackResponse.decode(u) { for f in r.fields { n &+= f.name.utf8.count &+ f.value.utf8.count } } }
        return n
    }
    func foundation(_ urls: [String]) -> Int {
        var n = 0
        for u in urls { if let items = URLComponents(string: u)?.queryItems { n &+= items.count } }
        return n
    }

    if ProcessInfo.processInfo.environment["TILL_BENCH_PROFILE"] != nil {
        // For `perf record`: the decoder alone, many rounds.
        let t = best(40, [{ till(corpus) }])[0]
        report("CallbackResponse.decode (profile)", t, count: corpus.count)
        return
    }

    var decodedOK = 0
    for u in corpus { if (try? CallbackResponse.decode(u)) != nil { decodedOK += 1 } }
    let accepted = corpus.filter { URLComponents(string: $0)?.queryItems != nil }
    print("  CallbackResponse.decode decodes \(decodedOK)/\(corpus.count); "
          + "URLComponents(string:) accepts \(accepted.count)/\(corpus.count) (\(percent(accepted.count, corpus.count)))")

    // Python runs once before and once after the Swift rounds, and the Swift rounds are interleaved
    // (a, b, c, a, b, c, …): every contender gets its best over the same stretch of a shared machine's load.
    let pyBefore = try pythonParseQsl(corpusFile: corpusFile, rounds: rounds)
    let t = best(rounds, [{ till(corpus) }, { till(accepted) }, { foundation(accepted) }])
    let pyAfter = try pythonParseQsl(corpusFile: corpusFile, rounds: rounds)
    report("CallbackResponse.decode, all URLs", t[0], count: corpus.count)
    report("CallbackResponse.decode, URLs URLComponents accepts", t[1], count: accepted.count)
    report("URLComponents(string:) + queryItems, same URLs", t[2], count: accepted.count)
    let vsFoundation = t[2].seconds / t[1].seconds
    print("  => till vs URLComponents: \(fmt(vsFoundation))x faster (target >= 2x): \(vsFoundation >= 2 ? "met" : "MISSED")")

    let py: (seconds: Double, version: String)? = switch (pyBefore, pyAfter) {
    case let (a?, b?): a.seconds <= b.seconds ? a : b
    case let (a?, nil): a
    case let (nil, b): b
    }
    if let py {
        print("  python3 \(py.version) urllib.parse.parse_qsl, all URLs: best of 2 x \(rounds): \(fmt(py.seconds * 1000)) ms, "
              + "\(fmt(Double(corpus.count) / py.seconds / 1000)) k URLs/s, \(fmt(py.seconds / Double(corpus.count) * 1e9)) ns/URL")
        let vsPython = py.seconds / t[0].seconds
        print("  => till vs Python parse_qsl: \(fmt(vsPython))x faster (target >= 10x): \(vsPython >= 10 ? "met" : "MISSED")")
    } else {
        print("  python3 not available: Python comparison skipped")
    }
    // Not part of the comparison: what a consumer that reads every field as Strings pays in all.
    let all = best(rounds, [{ tillAll(corpus) }])
    report("for comparison: decode + every field's name and value read as a String", all[0], count: corpus.count)
}

// MARK: - Timing

fileprivate struct Timing { var seconds: Double; var check: Int }

/// Best (smallest) time of each piece of work over `rounds` interleaved rounds (after one warm-up
/// round); each result is kept so that the work cannot be optimised away.
fileprivate func best(_ rounds: Int, _ works: [() -> Int]) -> [Timing] {
    let clock = ContinuousClock()
    var timings = works.map { _ in Timing(seconds: .infinity, check: 0) }
    for w in works { _ = w() }
    for _ in 0..<rounds {
        for (i, w) in works.enumerated() {
            let start = clock.now
            let check = w()
            let d = clock.now - start
            let s = Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
            if s < timings[i].seconds { timings[i] = Timing(seconds: s, check: check) }
        }
    }
    return timings
}

private func report(_ name: String, _ t: Timing, count: Int) {
    print("  \(name): best: \(fmt(t.seconds * 1000)) ms, \(fmt(Double(count) / t.seconds / 1000)) k URLs/s, "
          + "\(fmt(t.seconds / Double(count) * 1e9)) ns/URL (fields \(t.check))")
}

private func fmt(_ x: Double) -> String {
    let s = String(Int((x * 100).rounded()))
    let padded = String(repeating: "0", count: max(0, 3 - s.count)) + s
    return String(padded.dropLast(2)) + "." + String(padded.suffix(2))
}

private func percent(_ a: Int, _ b: Int) -> String { fmt(Double(a) * 100 / Double(b)) + "%" }

// MARK: - Python

private func pythonParseQsl(corpusFile: URL, rounds: Int) throws -> (seconds: Double, version: String)? {
    let dir = corpusFile.deletingLastPathComponent()
    let script = """
        import sys, time, platform
        from urllib.parse import parse_qsl
        lines = open(sys.argv[1], encoding="utf-8").read().split("\\n")[:-1]
        rounds = int(sys.argv[2])
        def run():
            n = 0
            for line in lines:
                q = line.partition("?")[2]
                n += len(parse_qsl(q, keep_blank_values=True))
            return n
        run()
        best = float("inf")
        for _ in range(rounds):
            t = time.perf_counter(); n = run(); best = min(best, time.perf_counter() - t)
        print(best, n, platform.python_version())
        """
    let scriptFile = dir.appendingPathComponent("bench.py")
    try Data(script.utf8).write(to: scriptFile)
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    p.arguments = ["python3", scriptFile.path, corpusFile.path, String(rounds)]
    let out = Pipe()
    p.standardOutput = out
    do { try p.run() } catch { return nil }
    let data = out.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    guard p.terminationStatus == 0 else { return nil }
    let parts = String(decoding: data, as: UTF8.self).split(separator: " ")
    guard parts.count >= 3, let s = Double(parts[0]) else { return nil }
    return (s, parts[2].trimmingCharacters(in: .whitespacesAndNewlines))
}

// MARK: - Corpus

/// Varied callback URLs, deterministic under a seed: approved and declined sales, refunds, captures,
/// aborts, batches, details; and sloppy ones (stray spaces, unescaped spaces, `+`/space in dates,
/// upper-case actions, unmasked cards, alphabetical order, missing fields).
enum CallbackCorpus {
    /// The simulator's SplitMix64, with the corpus's helpers.
    struct RNG {
        var mix: SplitMix64
        init(state: UInt64) { mix = SplitMix64(state: state) }
        mutating func int(_ n: Int) -> Int { mix.int(n) }
        mutating func chance(_ percent: Int) -> Bool { int(100) < percent }
        mutating func pick<T>(_ xs: [T]) -> T { xs[int(xs.count)] }
        mutating func digits(_ n: Int) -> String { String((0..<n).map { _ in Character(String(int(10))) }) }
        mutating func hex(_ n: Int) -> String { String((0..<n).map { _ in pick(Array("0123456789abcdef")) }) }
    }

    static func make(count: Int, seed: UInt64) -> [(kind: String, url: String)] {
        var rng = RNG(state: seed)
        return (0..<count).map { _ in one(&rng) }
    }

    static func one(_ rng: inout RNG) -> (kind: String, url: String) {
        let action = rng.pick(["sale", "sale", "sale", "sale", "cancel", "capture_pre_auth", "pre_auth", "abort", "batch", "transactionDetails"])
        let approved = rng.chance(65)
        var f: [(String, String)] = []
        let failures = ["(-12) TRANSACTION_DECLINED_BY_SERVER", "(-4) USER_CANCEL", "(-62) RESELLER_ORDER_DECLINED",
                        "Transaction declined by host.", "(-57) ABORTED"]
        f.append(("status", approved ? "success" : rng.pick(["fail", "fail", "failed"])))
        switch action {
        case "abort":
            f.append(("message", approved ? "aborted" : rng.pick(["(-57) ABORTED", "(-55) NOTHING_TO_ABORT", "nothing to abort"])))
            f.append(("action", "abort"))
            if rng.chance(50) { f.append(("amount", String(rng.int(100_000)))); f.append(("tipAmount", "0")) }
        case "batch":
            let command = rng.pick(["open", "close"])
            f.append(("message", approved ? (command == "open" ? "Batch opened" : "Batch closed") : "(-30) BATCH_ERROR"))
            f.append(("action", "batch"))
            f.append(("command", command))
            f.append(("batchName", rng.pick(["morningShift", "evening", "Shift 2", "Café du Nord", "till-\(rng.int(99))"])))
            f.append(("batchId", "\(rng.hex(8))-\(rng.hex(4))-\(rng.hex(4))-\(rng.hex(4))-\(rng.hex(12))".uppercased()))
        default:
            f.append(("message", approved ? rng.pick(["Transaction successful.", "Transaction successful", "Transaction Details Fetched"])
                                          : rng.pick(failures)))
            f.append(("action", action))
            if rng.chance(70) { f.append(("clientTransactionId", rng.digits(rng.pick([8, 16, 32])))) }
            let amount = 1 + rng.int(500_000)
            f.append(("amount", String(amount)))
            if action == "sale" { f.append(("tipAmount", String(rng.int(amount / 5 + 1)))) }
            f.append(("verificationMethod", rng.pick(["CHIP", "CONTACTLESS", "MAGNETIC", "MANUAL ENTRY", "CHIP-PIN", "CONTACTLESS - NO CVM"])))
            let stan = approved ? rng.digits(6) : ""
            f.append(("rrn", approved ? rng.digits(6) + stan : ""))
            f.append(("cardType", rng.pick(["VISA", "Visa Credit", "Debit Mastercard", "MASTERCARD", "Maestro", "AMEX"])))
            let bin = rng.pick(["479275", "537489", "478123", "411111", "520000"])
            f.append(("accountNumber", rng.chance(5) ? bin + rng.digits(6) + rng.digits(4) : bin + "******" + rng.digits(4)))
            f.append(("referenceNumber", stan))
            f.append(("authorisationCode", approved ? rng.digits(6) : ""))
            f.append(("tid", rng.digits(8)))
            let order = rng.digits(16)
            f.append(("orderCode", order))
            if rng.chance(60) { f.append(("shortOrderCode", String(order.prefix(10)))) }
            if action == "sale" && rng.chance(20) { f.append(("installments", String(rng.int(37)))) }
            let frac = rng.digits(rng.pick([0, 3, 7]))
            let date = "20\(10 + rng.int(15))-0\(1 + rng.int(9))-1\(rng.int(10))T1\(rng.int(10)):\(10 + rng.int(50)):\(10 + rng.int(50))"
                + (frac.isEmpty ? "" : "." + frac) + rng.pick(["+03:00", "+02:00", "+00:00", "Z", "-05:00", "+0100"])
            f.append(("transactionDate", date))
            if approved { f.append(("transactionId", "\(rng.hex(8))-\(rng.hex(4))-\(rng.hex(4))-\(rng.hex(4))-\(rng.hex(12))")) }
        }
        let callback = rng.pick(["interapp-callback://result", "mycallbackscheme://result", "till://result"])
        if rng.chance(30) {
            // Sloppy: what real terminals and the pages show.
            if rng.chance(40) { f.sort { $0.0 < $1.0 } }
            var parts: [String] = []
            for (k, v) in f {
                var value = v
                var key = k
                if k == "action" && rng.chance(30) { value = v.uppercased() }
                if k == "transactionDate" && rng.chance(30) { value = value.replacingOccurrences(of: "+", with: " ") }
                // Raw, unescaped (spaces, parentheses), as the integrator's decline shows.
                if rng.chance(10) { key = " " + key }
                if rng.chance(10) { value += " " }
                parts.append(key + "=" + value)
            }
            return ("sloppy", callback + "?" + parts.joined(separator: "&"))
        }
        return (approved ? "approved" : "declined/failed", CallbackResponse.url(callback: callback, fields: f))
    }
}
