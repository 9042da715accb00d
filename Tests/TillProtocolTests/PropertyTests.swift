import Testing
@testable import TillProtocol

// Deterministic property and fuzz tests (seeded RNG): no input crashes the decoder, the request
// parser, Money.parse or validation; every failure is a typed error; valid typed requests survive
// url → parse unchanged.

/// SplitMix64: small, fast, deterministic under a seed.
struct SeededRNG: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &self) }
    mutating func chance(_ p: Double) -> Bool { Double.random(in: 0..<1, using: &self) < p }
    mutating func pick<T>(_ xs: [T]) -> T { xs[int(0...xs.count - 1)] }
}

enum Fuzz {
    static let interesting: [[UInt8]] = [
        Array("%".utf8), Array("&".utf8), Array("=".utf8), Array(" ".utf8), Array("+".utf8), Array("?".utf8),
        Array("%2".utf8), Array("%zz".utf8), Array("%00".utf8), Array("%FF".utf8), Array("://".utf8), Array("&&".utf8),
        Array("(-57) ".utf8), Array("\t".utf8), [0x00], [0x0A], [0x0D], [0x1B], [0x7F], [0x80], [0xC3], [0xFF],
        Array("é".utf8), Array("🙂".utf8), Array("\u{202E}".utf8), Array("\u{FEFF}".utf8), Array("*".utf8),
        Array("status=".utf8), Array("action=ABORT".utf8), Array("amount=".utf8), Array("99999999999999999999".utf8),
        Array("accountNumber=4792751234569999".utf8), Array("transactionDate=2019-09-13T12:14:19.8703452 03:00".utf8),
    ]

    /// One random mutation of `bytes`.
    static func mutate(_ bytes: [UInt8], _ rng: inout SeededRNG) -> [UInt8] {
        var b = bytes
        switch rng.int(0...8) {
        case 0: // truncate
            if !b.isEmpty { b = Array(b.prefix(rng.int(0...b.count))) }
        case 1: // flip a byte
            if !b.isEmpty { b[rng.int(0...b.count - 1)] = UInt8.random(in: 0...255, using: &rng) }
        case 2, 3: // insert something interesting
            let piece = rng.pick(interesting)
            b.insert(contentsOf: piece, at: rng.int(0...b.count))
        case 4: // delete a run
            if !b.isEmpty {
                let s = rng.int(0...b.count - 1)
                b.removeSubrange(s..<min(b.count, s + rng.int(1...8)))
            }
        case 5: // duplicate a slice (duplicate fields)
            if b.count > 2 {
                let s = rng.int(0...b.count - 2), e = rng.int(s + 1...b.count)
                b.insert(contentsOf: b[s..<e], at: rng.int(0...b.count))
            }
        case 6: // a huge value
            b.insert(contentsOf: [UInt8](repeating: UInt8(ascii: rng.pick(["9", "a", "%", "&", " "])), count: rng.int(100...20_000)),
                     at: rng.int(0...b.count))
        case 7: // random printable noise
            for _ in 0..<rng.int(1...10) { b.insert(UInt8.random(in: 0x20...0x7E, using: &rng), at: rng.int(0...b.count)) }
        default: // swap two halves
            if b.count > 2 { let m = rng.int(1...b.count - 1); b = Array(b[m...] + b[..<m]) }
        }
        return b
    }

    static func randomBytes(_ rng: inout SeededRNG) -> [UInt8] {
        (0..<rng.int(0...200)).map { _ in
            rng.chance(0.7) ? UInt8.random(in: 0x20...0x7E, using: &rng) : UInt8.random(in: 0...255, using: &rng)
        }
    }

    static func string(_ b: [UInt8]) -> String { String(decoding: b, as: UTF8.self) }
}

/// What a decoded callback must always be, as a list of what it broke (empty: all held). Callers gather these
/// over many inputs and expect them empty once (an #expect per input held a test thread for seconds).
private func invariantProblems(_ r: CallbackResponse, input: String) -> [String] {
    var problems: [String] = []
    if r.isApproved != (r.status == .success) { problems.append("isApproved disagrees with status in \(input.debugDescription)") }
    if r.target.isEmpty { problems.append("empty target from \(input.debugDescription)") }
    var names = Set<String>()
    for f in r.fields where !names.insert(f.name).inserted { problems.append("duplicate \(f.name) from \(input.debugDescription)") }
    if let a = r.accountNumber, a.unicodeScalars.filter({ $0.value >= 48 && $0.value <= 57 }).count > 10 {
        problems.append("unmasked \(a)")
    }
    if let a = r.amount, a.cents < 0 { problems.append("negative amount from \(input.debugDescription)") }
    _ = r.json.text()
    _ = r.abortOutcome
    return problems
}

@Suite("Properties and fuzzing")
struct PropertyTests {
    static let validRequests: [String] = {
        let c = Caller(callback: "interapp-callback", merchantKey: "SG23323424EXS3", appId: "com.vivawallet.InterAppDemo")
        let rs: [Request] = [
            .sale(SaleRequest(amount: Money(cents: 1200), tipAmount: Money(cents: 200), clientTransactionId: "x y", withInstallments: true,
                              preferredInstallments: 3, showReceipt: false, showRating: true, showTransactionResult: false,
                              isv: ISVFields(amount: Money(cents: 10), clientId: "id", clientSecret: "s", sourceCode: "Default"),
                              protocolName: "int_default")),
            .preAuth(PreAuthRequest(amount: Money(cents: 5000))), .abort,
            .cancel(CancelRequest(amount: Money(cents: 100), finder: TransactionFinder(referenceNumber: "833121"))),
            .capturePreAuth(CaptureRequest(finder: TransactionFinder(shortOrderCode: "1091139195", txnDateFrom: "2021-03-29T00:00:00.000+0300"))),
            .batch(BatchRequest(command: .close, batchName: "a&b", batchId: "7885F4F1-59CA-42C2-81BB-6DB48AA138A6")),
            .transactionDetails(DetailsRequest(clientTransactionId: "order-17")),
        ]
        return rs.map { TerminalRequest(caller: c, request: $0).url }
    }()

    @Test func mutatedCallbacksNeverCrashTheDecoder() {
        var rng = SeededRNG(seed: 0xC0FFEE)
        var decoded = 0, refused = 0
        // Failures are gathered and expected once: an #expect per input made this test hold a test thread for
        // seconds, and async tests with deadlines starved beside it (Swift Testing has a thread per core).
        var silent: [String] = [], broken: [String] = []
        let seeds = PagesCallbacks.all.map { Array($0.utf8) }
        for _ in 0..<6_000 {
            var b = rng.pick(seeds)
            for _ in 0..<rng.int(1...4) { b = Fuzz.mutate(b, &rng) }
            let input = Fuzz.string(b)
            do {
                let r = try CallbackResponse.decode(input)
                broken += invariantProblems(r, input: input)
                decoded += 1
            } catch {
                // Typed: `error` is a DecodeError, with a message for the cashier.
                if error.description.isEmpty { silent.append(input) }
                refused += 1
            }
        }
        #expect(silent.isEmpty, "refused without a message: \(silent.prefix(5))")
        #expect(broken.isEmpty, "\(broken.count) broken invariants, first: \(broken.prefix(5))")
        // Both paths were exercised.
        #expect(decoded > 1_000)
        #expect(refused > 100)
    }

    @Test func randomBytesNeverCrashAnything() {
        var rng = SeededRNG(seed: 42)
        var broken: [String] = []
        for _ in 0..<4_000 {
            var b = Fuzz.randomBytes(&rng)
            if rng.chance(0.5) { b = Array("cb://result?status=".utf8) + b }
            let s = Fuzz.string(b)
            if let r = try? CallbackResponse.decode(s) { broken += invariantProblems(r, input: s) }
            _ = try? TerminalRequest.parse(s)
            _ = try? Money.parse(s)
            _ = TerminalDate.parse(s)
            _ = CardNumber.mask(s)
            _ = Secrets.redact(url: s)
        }
        #expect(broken.isEmpty, "\(broken.count) broken invariants, first: \(broken.prefix(5))")
    }

    @Test func mutatedRequestsNeverCrashTheParserOrValidation() {
        var rng = SeededRNG(seed: 7)
        var parsed = 0
        let seeds = Self.validRequests.map { Array($0.utf8) }
        for _ in 0..<5_000 {
            var b = rng.pick(seeds)
            for _ in 0..<rng.int(1...3) { b = Fuzz.mutate(b, &rng) }
            do {
                let r = try TerminalRequest.parse(Fuzz.string(b))
                let errors = r.validationErrors()
                for e in errors { #expect(!e.message.isEmpty && !e.field.isEmpty) }
                if errors.isEmpty {
                    // A valid request parsed from anything is itself stable under url → parse.
                    #expect(try TerminalRequest.parse(r.url) == r)
                }
                _ = r.redactedURL
                parsed += 1
            } catch {
                #expect(!error.message.isEmpty)
            }
        }
        #expect(parsed > 1_000)
    }

    @Test func mutatedMoneyTextNeverCrashes() {
        var rng = SeededRNG(seed: 99)
        let seeds = ["12", "12.5", "12,50", "-3", "1e9", "12.345", "abc", "", "21474836.47", "0.01"].map { Array($0.utf8) }
        var ok = 0
        // Inputs that broke a property, expected empty once (an #expect per input cost 11 s; see above).
        var outOfRange: [String] = [], notRoundTripped: [String] = [], silent: [String] = []
        for _ in 0..<5_000 {
            var b = rng.pick(seeds)
            for _ in 0..<rng.int(0...3) { b = Fuzz.mutate(b, &rng) }
            let s = Fuzz.string(b)
            do {
                let m = try Money.parse(s)
                if !(m.cents >= 0 && m.cents <= Money.maximumCents) { outOfRange.append(s) }
                // What parses formats back to the same amount.
                if (try? Money.parse(m.description)) != m { notRoundTripped.append(s) }
                ok += 1
            } catch {
                if error.description.isEmpty { silent.append(s) }
            }
        }
        #expect(outOfRange.isEmpty, "out of range: \(outOfRange.prefix(5))")
        #expect(notRoundTripped.isEmpty, "formatted back differently: \(notRoundTripped.prefix(5))")
        #expect(silent.isEmpty, "refused without a message: \(silent.prefix(5))")
        #expect(ok > 100)
    }

    @Test func randomTypedRequestsNeverCrashValidation() {
        var rng = SeededRNG(seed: 2024)
        for _ in 0..<3_000 {
            let r = RequestGen.any(&rng, wild: true)
            let errors = r.validationErrors()
            for e in errors { #expect(!e.message.isEmpty) }
            _ = r.url
        }
    }

    @Test func validTypedRequestsRoundTrip() throws {
        var rng = SeededRNG(seed: 1234)
        var valid = 0
        var actions = Set<Action>()
        for _ in 0..<4_000 {
            let r = RequestGen.any(&rng, wild: false)
            guard r.validationErrors().isEmpty else { continue }
            valid += 1
            actions.insert(r.request.action)
            var back = try TerminalRequest.parse(r.url)
            // Activation requests carry no merchantKey (the iOS sample's activationBaseUrlString).
            if !r.request.sendsMerchantKey { #expect(back.caller.merchantKey == ""); back.caller.merchantKey = r.caller.merchantKey }
            #expect(back == r, "\(r.url)")
            // The URL itself carries every value in one parameter: no value adds a parameter.
            let names = r.url.split(separator: "?", maxSplits: 1)[1].split(separator: "&").map { $0.split(separator: "=")[0] }
            #expect(names.count == (r.request.sendsMerchantKey ? 4 : 3) + r.request.fields.count)
        }
        #expect(valid > 1_500)
        #expect(actions == Set(Action.allCases))
    }

    @Test func generatedCallbacksRoundTrip() throws {
        var rng = SeededRNG(seed: 555)
        var broken: [String] = []
        for _ in 0..<3_000 {
            var fields: [(String, String)] = [("status", rng.pick(["success", "fail"]))]
            for name in ["message", "action", "amount", "cardType", "accountNumber", "transactionDate", "batchName", "extra"] where rng.chance(0.7) {
                fields.append((name, RequestGen.text(&rng)))
            }
            let url = CallbackResponse.url(callback: rng.pick(["interapp-callback", "mycallbackscheme://result"]), fields: fields)
            let r = try CallbackResponse.decode(url)
            broken += invariantProblems(r, input: url)
            if r.fields.count != fields.count { broken.append("\(r.fields.count) fields of \(fields.count) from \(url)") }
            for (f, (name, value)) in zip(r.fields, fields) {
                if f.name != name { broken.append("field \(name) read as \(f.name) from \(url)") }
                if name != "accountNumber" && name != "transactionDate" && f.value != value {
                    broken.append("\(name) read as \(f.value.debugDescription), not \(value.debugDescription)")
                }
            }
        }
        #expect(broken.isEmpty, "\(broken.count) broken, first: \(broken.prefix(5))")
    }
}

/// Random typed requests; `wild` also produces nonsense (negative cents, huge numbers, control characters).
enum RequestGen {
    static let alphabet: [String] = ["a", "B", "z", "0", "9", " ", "&", "=", "%", "+", "#", "?", "/", ":", "*", "é", "€", "🙂",
                                     "\u{301}", "-", "_", ".", "~", "'", "\"", "<", "ß", "中"]

    static func text(_ rng: inout SeededRNG, wild: Bool = false) -> String {
        var s = ""
        for _ in 0..<rng.int(1...20) { s += rng.pick(alphabet) }
        if wild && rng.chance(0.2) { s += rng.pick(["\n", "\u{0}", "\t", "\u{7F}", "  ", ""]) }
        if !wild { // valid text: no whitespace at either end
            var u = Array(s.unicodeScalars)
            while let f = u.first, f.properties.isWhitespace { u.removeFirst() }
            while let l = u.last, l.properties.isWhitespace { u.removeLast() }
            if u.isEmpty { u = ["x"] }
            var t = ""
            t.unicodeScalars.append(contentsOf: u)
            return t
        }
        return s
    }
    static func opt<T>(_ rng: inout SeededRNG, _ make: (inout SeededRNG) -> T) -> T? { rng.chance(0.5) ? make(&rng) : nil }
    static func money(_ rng: inout SeededRNG, wild: Bool, upTo: Int = 1_000_000) -> Money {
        if wild { return Money(cents: rng.pick([0, -1, Int.max, Int.min, Money.maximumCents, rng.int(-1000...upTo)])) }
        return Money(cents: rng.int(1...upTo))
    }
    static func digits(_ rng: inout SeededRNG, _ n: Int) -> String { String((0..<n).map { _ in Character(String(rng.int(0...9))) }) }
    static func date(_ rng: inout SeededRNG, after: Int64 = 0) -> String {
        TerminalDate.format(instant: after + Int64(rng.int(0...2_000_000_000)) * TerminalDate.ticksPerSecond + Int64(rng.int(0...9_999_999)),
                            offsetMinutes: rng.pick([0, 60, 180, -300, 330]))
    }
    static func uuid(_ rng: inout SeededRNG) -> String {
        let hex = Array("0123456789ABCDEFabcdef")
        return [8, 4, 4, 4, 12].map { n in String((0..<n).map { _ in rng.pick(hex) }) }.joined(separator: "-")
    }

    static func finder(_ rng: inout SeededRNG, wild: Bool) -> TransactionFinder {
        var f = TransactionFinder()
        if rng.chance(0.5) { f.referenceNumber = wild && rng.chance(0.3) ? text(&rng, wild: true) : digits(&rng, 6) }
        if rng.chance(0.4) { f.orderCode = digits(&rng, rng.int(10...20)) }
        if rng.chance(0.4) { f.shortOrderCode = digits(&rng, 10) }
        if rng.chance(0.4) {
            let from = date(&rng)
            f.txnDateFrom = from
            if rng.chance(0.5) { f.txnDateTo = date(&rng, after: TerminalDate.parse(from)!.instant) }
        } else if wild && rng.chance(0.3) { f.txnDateTo = text(&rng, wild: true) }
        return f
    }

    static func any(_ rng: inout SeededRNG, wild: Bool) -> TerminalRequest {
        // A valid callback is one a terminal can answer to (CallbackAddress): wild ones are any text.
        let caller = Caller(callback: rng.chance(0.5) ? "interapp-callback"
                                : wild ? text(&rng, wild: true) : rng.pick(["mycallbackscheme://result", "till+a.b-c", "cb://host/a_b"]),
                            merchantKey: text(&rng, wild: wild), appId: text(&rng, wild: wild))
        let request: Request
        switch rng.int(0...12) {
        case 0:
            let amount = money(&rng, wild: wild)
            // Above 36 the terminal asks the cardholder (sale.txt:28): sent, not refused.
            let n: Int? = rng.chance(0.4) ? (wild ? rng.int(-5...1200) : rng.int(0...120)) : nil
            var isv: ISVFields? = nil
            if rng.chance(0.3) {
                isv = ISVFields(amount: wild ? money(&rng, wild: true) : Money(cents: rng.int(0...min(amount.cents, 1000))), clientId: text(&rng, wild: wild),
                                clientSecret: text(&rng, wild: wild), sourceCode: opt(&rng) { text(&$0, wild: wild) },
                                merchantId: opt(&rng) { text(&$0, wild: wild) }, merchantSourceCode: opt(&rng) { text(&$0, wild: wild) },
                                customerTrns: opt(&rng) { text(&$0, wild: wild) }, clientTransactionId: opt(&rng) { text(&$0, wild: wild) })
                if isv?.merchantId != nil && rng.chance(0.5) { isv?.currencyCode = wild ? text(&rng, wild: true) : rng.pick(["978", "EUR", "826"]) }
            }
            request = .sale(SaleRequest(
                amount: amount, tipAmount: rng.chance(0.5) ? (wild ? money(&rng, wild: true) : Money(cents: rng.int(0...min(amount.cents, Money.maximumCents - amount.cents)))) : nil,
                clientTransactionId: opt(&rng) { text(&$0, wild: wild) },
                withInstallments: n != nil ? true : (rng.chance(0.5) ? false : nil), preferredInstallments: n,
                paymentMethod: opt(&rng) { $0.pick(PaymentMethod.allCases) },
                showReceipt: opt(&rng) { $0.chance(0.5) }, showRating: opt(&rng) { $0.chance(0.5) },
                showTransactionResult: opt(&rng) { $0.chance(0.5) }, isv: isv,
                protocolName: rng.chance(0.5) ? "int_default" : nil))
        case 1:
            request = .preAuth(PreAuthRequest(amount: money(&rng, wild: wild), clientTransactionId: opt(&rng) { text(&$0, wild: wild) },
                                              paymentMethod: opt(&rng) { $0.pick(PaymentMethod.allCases) },
                                              showReceipt: opt(&rng) { $0.chance(0.5) }, showRating: opt(&rng) { $0.chance(0.5) },
                                              showTransactionResult: opt(&rng) { $0.chance(0.5) },
                                              protocolName: rng.chance(0.5) ? "int_default" : nil))
        case 2:
            request = .cancel(CancelRequest(amount: opt(&rng) { money(&$0, wild: wild) }, finder: finder(&rng, wild: wild),
                                            showReceipt: opt(&rng) { $0.chance(0.5) }, showTransactionResult: opt(&rng) { $0.chance(0.5) }))
        case 3:
            var f = finder(&rng, wild: wild)
            if !wild && !f.hasKey { f.referenceNumber = digits(&rng, 6) }
            request = .capturePreAuth(CaptureRequest(amount: opt(&rng) { money(&$0, wild: wild) }, finder: f,
                                                     showReceipt: opt(&rng) { $0.chance(0.5) },
                                                     showTransactionResult: opt(&rng) { $0.chance(0.5) },
                                                     protocolName: rng.chance(0.5) ? "int_default" : nil))
        case 4:
            request = .abort
        case 5:
            let command: BatchCommand = rng.chance(0.5) ? .open : .close
            request = .batch(BatchRequest(command: command, batchName: opt(&rng) { text(&$0, wild: wild) },
                                          batchId: (command == .close || wild) && rng.chance(0.5) ? (wild && rng.chance(0.3) ? text(&rng, wild: true) : uuid(&rng)) : nil))
        case 6:
            request = .transactionDetails(DetailsRequest(clientTransactionId: text(&rng, wild: wild),
                                                         sourceTerminalId: opt(&rng) { text(&$0, wild: wild) }))
        case 7:
            request = .reprint(ReprintRequest(orderCode: opt(&rng) { wild ? text(&$0, wild: true) : digits(&$0, 16) }))
        case 8:
            request = .getPrintingSettings
        case 9:
            var p = PrintingSettings()
            for (_, path) in PrintingSettings.switches where rng.chance(0.4) { p[keyPath: path] = rng.chance(0.5) }
            if rng.chance(0.3) { p.businessDescriptionType = rng.pick(BusinessDescriptionType.allCases) }
            if !wild && p.isEmpty { p.logo = true }
            request = .setPrintingSettings(p)
        case 10:
            request = .sendLogs
        case 11:
            request = .getActivationCode
        default:
            var flags: [String: Bool] = [:]
            for n in ActivationRequest.flagNames where rng.chance(0.3) { flags[n] = rng.chance(0.5) }
            let byCode = rng.chance(0.5)
            request = .activatePos(ActivationRequest(
                apiKey: byCode ? nil : text(&rng, wild: wild), apiSecret: byCode ? nil : text(&rng, wild: wild),
                activationCode: byCode ? text(&rng, wild: wild) : nil, sourceId: opt(&rng) { text(&$0, wild: wild) },
                pinCode: opt(&rng) { wild ? text(&$0, wild: true) : digits(&$0, 4) }, flags: flags))
        }
        return TerminalRequest(caller: caller, request: request)
    }
}
