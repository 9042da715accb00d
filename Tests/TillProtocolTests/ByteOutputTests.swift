import Foundation
import Testing
@testable import TillProtocol

/// `till decode --json` writes an answer from its raw bytes (issue 11): field values straight from the
/// received line, JSON escaping eight bytes at a time, the date formatted into bytes. Whatever the
/// bytes, it must write exactly what the reference (`CallbackResponse.json`, as `JSONValue.text`) writes.
@Suite("Byte-level output equals the reference")
struct ByteOutputTests {
    /// Hostile and ordinary answers: escapes, non-ASCII, invalid UTF-8, quotes, backslashes, control,
    /// DEL, C1 and bidi characters at every offset of an eight-byte word, secrets, a card number the
    /// decoder masks, a date it mends, names it decodes.
    static func hostileURLs() -> [String] {
        var urls: [String] = []
        let nasty = ["%22", "%5C", "%1B", "%7F", "%C2%9B", "%E2%80%AE", "%E2%81%A6", "%FF", "%C3%A9", "%0A", "%09", "%0D", "%00", "\\", "\"", "é", "€"]
        for (k, bad) in nasty.enumerated() {
            for offset in 0..<10 {
                let pad = String(repeating: "a", count: offset)
                urls.append("cb://result?status=success&action=sale&amount=\(100 + k)&message=\(pad)\(bad)\(pad)tail"
                            + "&cardType=\(pad)\(bad)&x\(bad)y=\(bad)\(pad)&batchName=\(pad)\(pad)\(bad)")
            }
        }
        urls += [
            "cb://result?status=success&action=sale&amount=1200&accountNumber=4792751234569999&merchantKey=s3cret&apikey=k&pinCode=1234",
            "cb://result?status=success&action=sale&amount=5&transactionDate=2023-01-17T12:46:19.0640821 02:00",
            "cb://result?status=fail&message=(-12) TRANSACTION_DECLINED_BY_SERVER&action=SALE&amount=50&tipAmount=-5&installments=three",
            "cb://result?status=success&action=sale& x%20y = %20a%26b%20 &flag&&cardType=%zz&zz=Caf%C3%A9&zz=dup&tid2=%FF",
            "cb://result?%6Derchant%4Bey=hidden&status=success&action=batch&command=open&batchName=Caf\u{E9} du Nord",
            // merchantKey with a Kelvin sign for its K: the same name to Swift's String (canonical equivalence), so
            // redacted by the text output and the journal; --json compared bytes and printed it (found by review).
            "cb://result?status=success&action=sale&amount=7&merchant%E2%84%AAey=kelvin-secret",
            "cb://result?status=success&action=sale&transactionDate=0001-01-01T00:00:00Z&amount=1",
            "cb://result?status=success&action=sale&transactionDate=2026-11-23T23:59:59.9999999-12:00&amount=999999999999",
        ]
        return urls
    }

    /// The reference with what till's output never writes raw (DEL, C1 controls, line separators and
    /// bidi controls: `SafeText`) escaped as JSON `\\uXXXX`, as till writes them.
    /// The decoded answer with its secrets' values replaced, as till's output shows them.
    static func redacted(_ url: String) throws -> CallbackResponse {
        var r = try CallbackResponse.decode(url)
        for i in r.fields.indices where Secrets.fieldNames.contains(r.fields[i].name) { r.fields[i].value = Secrets.placeholder }
        return r
    }

    static func safe(_ json: String) -> String {
        var out = ""
        for u in json.unicodeScalars {
            let v = u.value
            if v == 0x7F || (0x80...0x9F).contains(v) || (0x2028...0x202E).contains(v) || (0x2066...0x2069).contains(v) {
                let h = String(v, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - h.count) + h
            } else { out.unicodeScalars.append(u) }
        }
        return out
    }

    @Test func decodeJSONEqualsTheReferenceForHostileAnswers() throws {
        let urls = Self.hostileURLs()
        let out = try runWithFiles(["decode", "--json", "-"], stdin: urls.joined(separator: "\n") + "\n")
        let lines = out.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        try #require(lines.count == urls.count + 1, "one object a line")
        for (i, url) in urls.enumerated() {
            let reference = Self.safe(try Self.redacted(url).json.text(indent: nil))
            #expect(lines[i] == reference, "line \(i + 1): \(url)")
        }
    }

    @Test func prettyJSONEqualsTheReference() throws {
        for url in Self.hostileURLs().prefix(40) {
            let out = try TillBinary.run(["decode", "--json", url])
            #expect(out.stdout == Self.safe(try Self.redacted(url).json.text(indent: 2)) + "\n", "\(url)")
        }
    }

    /// `forEachUTF8` gives every field's name and value as `self[i]` does, raw or not.
    @Test func forEachUTF8MatchesTheFields() throws {
        for url in Self.hostileURLs() {
            var r = try CallbackResponse.decode(url)
            if r.fields.count > 2 { r.fields[1].value = "over\u{1B}ridden" }   // an override among raw fields
            var seen: [QueryField] = []
            r.fields.forEachUTF8 { n, v in
                seen.append(QueryField(name: String(decoding: n, as: UTF8.self), value: String(decoding: v, as: UTF8.self)))
            }
            #expect(seen == r.fields.array, "\(url)")
        }
    }

    /// The byte formatter of a date: known texts, and every text reads back as the same instant.
    @Test func dateBytesAreTheDateText() {
        for (t, offset, text) in [(Int64(15_683_660_598_703_452), 180, "2019-09-13T12:14:19.8703452+03:00"),
                                  (0, 0, "1970-01-01T00:00:00.0000000+00:00"), (-1, 0, "1969-12-31T23:59:59.9999999+00:00"),
                                  (0, -330, "1969-12-31T18:30:00.0000000-05:30")] {
            var bytes: [UInt8] = []
            TerminalDate.appendFormatted(instant: t, offsetMinutes: offset, to: &bytes)
            #expect(String(decoding: bytes, as: UTF8.self) == text)
        }
        var rng = SystemRandomNumberGenerator()
        // Years 1 to 9998 (a day's margin each side for the offsets): what a four-digit year can say.
        let range: ClosedRange<Int64> = -621_300_000_000_000_000...2_533_000_000_000_000_000
        var instants: [Int64] = [0, -1, 1, 15_683_660_598_703_452, range.lowerBound, range.upperBound]
        for _ in 0..<500 { instants.append(Int64.random(in: range, using: &rng)) }
        for t in instants {
            for offset in [0, 60, -300, 345, -720, 840] {
                var bytes: [UInt8] = []
                TerminalDate.appendFormatted(instant: t, offsetMinutes: offset, to: &bytes)
                let text = String(decoding: bytes, as: UTF8.self)
                #expect(TerminalDate.parse(text)?.instant == t, "\(text) reads back")
            }
        }
    }
}
