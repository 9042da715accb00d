/// The status of an answer. Anything but `success` is not an approval.
public enum CallbackStatus: Sendable, Hashable, Codable, CustomStringConvertible {
    case success
    case fail
    case other(String)

    init(_ raw: String) {
        // The usual spellings first, without lowercasing.
        if raw == "success" { self = .success; return }
        if raw == "fail" { self = .fail; return }
        switch raw.lowercased() {
        case "success": self = .success
        case "fail", "failed", "failure": self = .fail
        default: self = .other(raw)
        }
    }
    public var description: String {
        switch self { case .success: return "success"; case .fail: return "fail"; case .other(let s): return s }
    }
}

/// Why a callback could not be decoded at all, in words a cashier understands.
public enum DecodeError: Error, Sendable, Hashable, CustomStringConvertible {
    case empty
    case tooLong(Int)
    case notAURL
    case noQuery
    case controlCharacter(position: Int)
    case missingStatus

    public var description: String {
        switch self {
        case .empty: return "The terminal's answer was empty."
        case .tooLong(let n): return "The terminal's answer is too long to be real (\(n) bytes)."
        case .notAURL: return "The terminal's answer is not a callback URL (no 'scheme://')."
        case .noQuery: return "The terminal's answer has no result fields (no '?')."
        case .controlCharacter(let p): return "The terminal's answer holds a control character at position \(p)."
        case .missingStatus: return "The terminal's answer does not say whether it succeeded (no status)."
        }
    }
}

/// The decoded answer of the terminal: every raw field, plus typed views of the known ones.
public struct CallbackResponse: Sendable, Hashable, Codable {
    /// What preceded `?`, e.g. `interapp-callback://result`.
    public var target: String
    /// Every field in arrival order, trimmed and percent-decoded; `accountNumber` masked.
    public var fields: QueryFields
    public var warnings: [DecodeWarning]

    public var status: CallbackStatus
    public var action: Action?
    public var rawAction: String?
    public var message: String?
    /// `-57` from `(-57) ABORTED`.
    public var messageCode: Int?
    /// `ABORTED` from `(-57) ABORTED`.
    public var messageName: String?
    public var amount: Money?
    public var tipAmount: Money?
    public var installments: Int?
    public var transactionDate: TerminalDate?

    public var isApproved: Bool { status == .success }

    /// The value of a field by its protocol name.
    public subscript(_ name: String) -> String? { fields.value(named: name) }

    public var clientTransactionId: String? { nonEmpty(.clientTransactionId) }
    public var verificationMethod: String? { nonEmpty(.verificationMethod) }
    public var rrn: String? { nonEmpty(.rrn) }
    public var cardType: String? { nonEmpty(.cardType) }
    public var accountNumber: String? { nonEmpty(.accountNumber) }
    public var referenceNumber: String? { nonEmpty(.referenceNumber) }
    public var authorisationCode: String? { nonEmpty(.authorisationCode) }
    public var tid: String? { nonEmpty(.tid) }
    public var orderCode: String? { nonEmpty(.orderCode) }
    public var shortOrderCode: String? { nonEmpty(.shortOrderCode) }
    public var transactionId: String? { nonEmpty(.transactionId) }
    /// The `command` field as sent (shown in the journal's raw fields); `batchCommand` is what till acts on.
    public var command: String? { nonEmpty(.command) }
    /// The batch command a batch answer reports (`open` / `close`, in any case); nil when absent or another word.
    /// The journal's batch events, the Z report at a close and the screen all read it here.
    public var batchCommand: BatchCommand? { command.flatMap { BatchCommand(rawValue: $0.lowercased()) } }
    public var batchName: String? { nonEmpty(.batchName) }
    public var batchId: String? { nonEmpty(.batchId) }

    func nonEmpty(_ kind: KnownField) -> String? {
        guard let v = fields.value(of: kind), !v.isEmpty else { return nil }
        return v
    }

    /// For an answer to `abort`, which of its outcomes it reports.
    public var abortOutcome: AbortOutcome? {
        let m = (messageName ?? message ?? "").uppercased().replacingSpaces()
        return AbortOutcome(nothingToAbort: m.contains("NOTHING_TO_ABORT"), aborted: m.contains("ABORTED"), messageCode: messageCode, action: action)
    }

    /// Decodes a callback URL. Never crashes; throws only when the input cannot be an answer at all.
    public static func decode(_ url: String) throws(DecodeError) -> CallbackResponse {
        var split: QuerySplit
        do { split = try QuerySplit.split(url) } catch {
            switch error {
            case .empty: throw .empty
            case .tooLong: throw .tooLong(url.utf8.count)
            case .noScheme: throw .notAURL
            case .noQuery: throw .noQuery
            case .controlCharacter(let p): throw .controlCharacter(position: p)
            }
        }
        var warnings = split.warnings
        split.warnings = []
        var status = CallbackStatus.fail, statusRaw: String?, statusSeen = false
        var action: Action?, rawAction: String?, message: String?, messageCode: Int?, messageName: String?
        var amount: Money?, tipAmount: Money?, installments: Int?, transactionDate: TerminalDate?
        var patches: [(Int, String)] = []   // values the decoder mends: applied once the bytes are let go
        var renames: [(Int, QueryField)] = []   // fields whose name held a card number
        // Only the fields with typed work are read, from their bytes where that gives the same answer;
        // the others stay raw until someone reads them.
        split.raw.withBytes { b in
            for (i, rec) in split.raw.records.enumerated() {
                let kind = rec.kind
                switch kind {
                case .status, .action, .message, .amount, .tipAmount, .installments, .transactionDate, .accountNumber: break
                // Free text, where a card number must not pass unmasked: read only when it has digits enough for one
                // (counted on the raw bytes: an escape's digits count too, which only makes the look closer).
                case .cardType, .verificationMethod, .batchName, .unknown:
                    // A bridge that lost the '=' leaves the value in the name (`accountNumber:4111…`).
                    let inName = kind == .unknown ? CardNumber.digits(RawFieldList.slice(b, rec.nameStart, rec.nameEnd)) : 0
                    if CardNumber.digits(RawFieldList.slice(b, rec.valueStart, rec.valueEnd)) < CardNumber.shortest
                        && inName < CardNumber.shortest { continue }
                // Identifiers: never a card number's length when right (a UUID has 32 digits, an RRN 12), looked at only
                // when they have one's.
                case .rrn, .referenceNumber, .authorisationCode, .tid, .shortOrderCode, .transactionId:
                    // Shorter than a card number's digits (a STAN, an RRN, a code), or a UUID (8-4-4-4-12: no card
                    // number is written so): nothing to count.
                    let v = RawFieldList.slice(b, rec.valueStart, rec.valueEnd)
                    if v.count < CardNumber.shortest { continue }
                    if v.count == 36, v[8] == 0x2D, v[13] == 0x2D, v[18] == 0x2D, v[23] == 0x2D { continue }
                    // (An escape's digits count too: the upper bound holds only for a value without one.)
                    let n = CardNumber.digits(v)
                    if n < CardNumber.shortest || (n > CardNumber.longest && rec.flags & RawField.valuePercent == 0) { continue }
                default: continue  // kept raw only: no need to touch the value
                }
                // A value's raw bytes are its text exactly when it holds no '%'.
                let plain = rec.flags & RawField.valuePercent == 0
                let vb = RawFieldList.slice(b, rec.valueStart, rec.valueEnd)
                @inline(__always) func text() -> String { RawFieldList.value(rec, b) }
                switch kind {
                case .status:
                    statusSeen = true
                    // The usual spellings straight from the bytes; anything else as a String.
                    if plain && KnownField.eq(vb, "success") { status = .success }
                    else if plain && (KnownField.eq(vb, "fail") || KnownField.eq(vb, "failed")) { status = .fail }
                    else { statusRaw = plain && vb.isEmpty ? "" : text() }
                case .action:
                    // The usual spellings straight from the bytes, spelled once; anything else as a String.
                    if plain, let a = Action(exactBytes: vb) { action = a; rawAction = a.rawValue; break }
                    let v = text()
                    rawAction = v
                    if let a = Action(exact: v) { action = a }
                    // Real terminals answer an abort with `action=ABORT`: their documented form, not a slip.
                    else if v == "ABORT" { action = .abort }
                    else if let a = Action(lenient: v) { action = a; warnings.append(.actionCase(v)) }
                    else { warnings.append(.unknownAction(v)) }
                case .message:
                    var v = text()
                    // Looked at for a card number only with digits enough for one (counted on the raw bytes).
                    if CardNumber.digits(vb) >= CardNumber.shortest, let masked = CardNumber.maskEmbedded(v) {
                        patches.append((i, masked)); warnings.append(.unmaskedCardNumber); v = masked
                    }
                    message = v
                    (messageCode, messageName) = parseMessage(v)
                case .amount, .tipAmount:
                    // Money.fromCents takes 1–12 ASCII digits: the raw bytes answer the same as the text.
                    var m: Money? = nil
                    var done = false
                    if plain {
                        if vb.isEmpty { break }
                        if vb.count <= 12 {
                            var value = 0, ok = true
                            for c in vb { if c &- 48 < 10 { value = value &* 10 &+ Int(c &- 48) } else { ok = false; break } }
                            if ok { m = Money(cents: value); done = true }
                        }
                    }
                    if !done {
                        let v = text()
                        if v.isEmpty { break }
                        m = Money.fromCents(Substring(v))
                    }
                    if let m {
                        if m.cents > Money.maximumCents { warnings.append(.amountOutOfRange(field: kind.name, value: String(m.cents))) }
                        if kind == .amount { amount = m } else { tipAmount = m }
                    } else { warnings.append(.badNumber(field: kind.name, value: text())) }
                case .installments:
                    let v = text()
                    if v.isEmpty { break }
                    if let n = Int(v), n >= 0 { installments = n }
                    else { warnings.append(.badNumber(field: kind.name, value: v)) }
                case .transactionDate:
                    let v = text()
                    if v.isEmpty { break }
                    var spaceWasPlus = false
                    if let d = TerminalDate.parse(v, spaceWasPlus: &spaceWasPlus) {
                        transactionDate = d
                        if spaceWasPlus {
                            patches.append((i, d.text))
                            warnings.removeAll { $0 == .unescapedSpace(field: kind.name) }
                            warnings.append(.spaceForPlusInDate(field: kind.name))
                        }
                    } else if let masked = CardNumber.maskWhole(v) {
                        patches.append((i, masked)); warnings.append(.unmaskedCardNumber)
                        warnings.append(.badDate(field: kind.name, value: masked))
                    } else { warnings.append(.badDate(field: kind.name, value: v)) }
                case .rrn, .referenceNumber, .authorisationCode, .tid, .shortOrderCode, .transactionId:
                    if let masked = CardNumber.maskWhole(text()) { patches.append((i, masked)); warnings.append(.unmaskedCardNumber) }
                case .accountNumber:
                    // Ten digits or fewer: CardNumber.mask leaves the value as it is, no need to make it.
                    if plain && CardNumber.digits(vb) <= 10 { break }
                    let v = text()
                    let masked = CardNumber.mask(v)
                    if masked != v { patches.append((i, masked)); warnings.append(.unmaskedCardNumber) }
                case .cardType, .verificationMethod, .batchName, .unknown:
                    let v = text()
                    let value = CardNumber.maskEmbedded(v)
                    let name = kind == .unknown ? CardNumber.maskEmbedded(RawFieldList.name(rec, b)) : nil
                    if let name { renames.append((i, QueryField(name: name, value: value ?? v))) }
                    else if let value { patches.append((i, value)) }
                    if value != nil || name != nil { warnings.append(.unmaskedCardNumber) }
                default: break
                }
            }
        }
        if !statusSeen { throw .missingStatus }
        if let statusRaw {
            guard !statusRaw.isEmpty else { throw .missingStatus }
            status = CallbackStatus(statusRaw)
        }
        for (i, v) in patches { split.raw.setValue(i, v) }
        for (i, f) in renames { split.raw.setOverride(i, f) }
        if !renames.isEmpty { warnings = warnings.map { $0.maskingCardNumbers() } }
        return CallbackResponse(target: split.target, fields: QueryFields(raw: split.raw), warnings: warnings,
                                status: status, action: action, rawAction: rawAction, message: message,
                                messageCode: messageCode, messageName: messageName, amount: amount,
                                tipAmount: tipAmount, installments: installments, transactionDate: transactionDate)
    }

    /// Splits `(-NN) NAME` into its code and name (bytes only: the decoder's hot path).
    static func parseMessage(_ m: String) -> (Int?, String?) {
        var copy = m
        return copy.withUTF8 { b -> (Int?, String?) in
            guard b.count >= 3, b[0] == 0x28 else { return (nil, nil) }
            var close = 1
            while close < b.count, b[close] != 0x29 { close += 1 }
            guard close < b.count else { return (nil, nil) }
            // The code: optional spaces, an optional sign, digits, optional spaces.
            var i = 1
            while i < close, b[i] == 0x20 || b[i] == 0x09 { i += 1 }
            var negative = false
            if i < close, b[i] == 0x2D || b[i] == 0x2B { negative = b[i] == 0x2D; i += 1 }
            var code = 0, digits = 0
            while i < close, b[i] >= 0x30, b[i] <= 0x39, digits < 9 { code = code * 10 + Int(b[i] - 0x30); digits += 1; i += 1 }
            while i < close, b[i] == 0x20 || b[i] == 0x09 { i += 1 }
            guard digits > 0, i == close else { return (nil, nil) }
            var ns = close + 1, ne = b.count
            while ns < ne, b[ns] == 0x20 || b[ns] == 0x09 { ns += 1 }
            while ne > ns, b[ne - 1] == 0x20 || b[ne - 1] == 0x09 { ne -= 1 }
            let name: String? = ns == ne ? nil : String(decoding: UnsafeBufferPointer(rebasing: b[ns..<ne]), as: UTF8.self)
            return (negative ? -code : code, name)
        }
    }

    /// Builds a callback URL as a terminal would: `<callback>://result?k=v&…`.
    /// A callback given with `://` already (`mycallbackscheme://result`) is used as it is.
    public static func url(callback: String, fields: [(String, String)]) -> String {
        var s = callback.contains("://") ? callback : callback + "://result"
        s += "?"
        var first = true
        for (k, v) in fields {
            if !first { s += "&" }
            first = false
            s += k + "=" + QueryCodec.encodeCallbackValue(v)
        }
        return s
    }
}

/// The three outcomes of an abort the pages describe (the fourth, no answer, is the sale's own result).
public enum AbortOutcome: String, Sendable, Hashable, Codable {
    case aborted
    case nothingToAbort
    case other
}

/// Masking of card numbers: only the first 6 and last 4 digits ever stay visible.
public enum CardNumber {
    /// Masks all but the first 6 and last 4 digits; an already-masked number is returned as it is.
    public static func mask(_ value: String) -> String {
        var copy = value
        if copy.withUTF8({ digits($0) }) <= 10 { return value }
        var all: [UInt8] = []
        for b in value.utf8 where (b >= 48 && b <= 57) || b == 0x2A { all.append(b) }
        let total = all.count
        var out = [UInt8]()
        var seenDigits = 0
        for (idx, b) in all.enumerated() {
            if b == 0x2A { out.append(b); continue }
            seenDigits += 1
            if seenDigits <= 6 || idx >= total - 4 { out.append(b) } else { out.append(0x2A) }
        }
        // If stars already stood in the middle and more than 10 digits were still visible,
        // the result keeps exactly the first 6 and last 4.
        return String(decoding: out, as: UTF8.self)
    }

    /// The fewest digits a card number has.
    static let shortest = 13
    /// The most.
    static let longest = 19

    /// A field that should hold an identifier (an RRN, a STAN, a transaction id …) holding a card number instead (13 to
    /// 19 digits, spaces or dashes between groups, its check digit right): masked as `accountNumber` is. An identifier
    /// is never masked otherwise: two transaction ids masked alike would read as one transaction.
    public static func maskWhole(_ text: String) -> String? {
        var digits: [Int] = []
        for c in text.unicodeScalars {
            if c.value >= 48 && c.value <= 57 { digits.append(Int(c.value - 48)) }
            else if c == " " || c == "-" || c == "." || c == "/" { continue }
            else { return nil }
        }
        guard (shortest...longest).contains(digits.count) else { return nil }
        var sum = 0
        for (k, d) in digits.reversed().enumerated() { sum += k % 2 == 1 ? (d * 2 > 9 ? d * 2 - 9 : d * 2) : d }
        guard sum % 10 == 0 else { return nil }
        return maskEmbedded(text) ?? text
    }

    /// How many ASCII digits `bytes` holds: the decoder's cheap look before it reads a field for a card number.
    @inline(__always) static func digits(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var n = 0
        for c in bytes where c &- 48 < 10 { n += 1 }
        return n
    }

    /// Card numbers inside free text (a message, a card type, a field till does not know): each run of 13 digits or
    /// more, single spaces, dashes, dots or slashes allowed between them, masked but for its first 6 and last 4 digits
    /// (a card number followed by its expiry or a STAN reads as one longer run: masked whole, the card number with
    /// it). Without a check digit test, as `mask` has none: another number that long in a message (an order code) is
    /// masked too, which costs nothing (its own field keeps it), where a card number missed is a card number in clear.
    /// Nil: nothing to mask.
    public static func maskEmbedded(_ text: String) -> String? {
        var chars = Array(text)
        @inline(__always) func digit(_ i: Int) -> Bool { chars[i].isASCII && chars[i].isNumber }
        // Between groups: a space of any width (a no-break or thin space too), a dash, a dot or a slash.
        @inline(__always) func separator(_ i: Int) -> Bool { chars[i].isWhitespace || chars[i] == "-" || chars[i] == "." || chars[i] == "/" }
        var changed = false
        var i = 0
        while i < chars.count {
            guard digit(i) else { i += 1; continue }
            var run = [i]
            var j = i + 1
            while j < chars.count {
                if digit(j) { run.append(j); j += 1 }
                else if separator(j), j + 1 < chars.count, digit(j + 1) { j += 1 }
                else { break }
            }
            if run.count >= shortest {
                for (k, p) in run.enumerated() where k >= 6 && k < run.count - 4 { chars[p] = "*" }
                changed = true
            }
            i = j
        }
        return changed ? String(chars) : nil
    }
}

extension String {
    func replacingSpaces() -> String { String(map { $0 == " " ? "_" : $0 }) }
}
