import Foundation
import Testing

/// `till decode`'s output: what it says about money, and its JSON against the reference shape.
@Suite("till decode output")
struct DecodeOutputTests {
    @Test func aDeclinedSaleIsNotCharged() throws {
        let r = try TillBinary.run(["decode", "cb://result?status=fail&message=(-12) TRANSACTION_DECLINED_BY_SERVER&action=sale&amount=1200&tipAmount=200"])
        #expect(r.status == 0)
        #expect(r.stdout.hasPrefix("DECLINED · sale\n"))
        #expect(r.stdout.contains("Amount            12.00 + tip 2.00 = 14.00 not charged"))
        #expect(!r.stdout.contains("charged\n") || r.stdout.contains("not charged"))
        let ok = try TillBinary.run(["decode", "cb://result?status=success&action=sale&amount=1200&tipAmount=200"])
        #expect(ok.stdout.contains("12.00 + tip 2.00 = 14.00 charged"))
        let pre = try TillBinary.run(["decode", "cb://result?status=success&action=pre_auth&amount=1200&tipAmount=200"])
        #expect(pre.stdout.contains("= 14.00 reserved"))
    }

    @Test func bidiAndControlCharactersNeverRawInTextOrJSON() throws {
        let url = "cb://result?status=success&action=batch&command=open&batchName=%E2%80%AEevil%1B%5B2J%C2%9B&batchId=x%E2%81%A6y"
        let text = try TillBinary.run(["decode", url])
        #expect(text.stdout.contains("Batch name        \\u{202E}evil\\u{1B}[2J\\u{9B}"))
        #expect(text.stdout.contains("Batch id          x\\u{2066}y"))
        for out in [text.stdout, try TillBinary.run(["decode", "--json", url]).stdout, try TillBinary.run(["decode", "--json", "-"], stdin: url + "\n").stdout] {
            #expect(!out.unicodeScalars.contains { [0x1B, 0x9B, 0x202E, 0x2066].contains($0.value) }, "raw: \(out)")
        }
        let json = try TillBinary.run(["decode", "--json", url]).stdout
        #expect(json.contains(#""batchName": "\u202eevil\u001b[2J\u009b""#))
        let object = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
        #expect(object?["batchName"] as? String == "\u{202E}evil\u{1B}[2J\u{9B}")
    }

    /// The abort outcome in the JSON, as `CallbackResponse.abortOutcome` decides it (spaces for `_`, any case).
    @Test(arguments: [
        ("cb://result?status=fail&action=abort&message=(-57) aborted", "aborted"),
        ("cb://result?status=success&action=abort&message=nothing to abort", "nothingToAbort"),
        ("cb://result?status=fail&action=sale&message=Nothing_To_Abort", "nothingToAbort"),
        ("cb://result?status=fail&action=abort&message=%C3%A9 ABORTED", "aborted"),
        ("cb://result?status=fail&action=abort&message=(-55) x", "nothingToAbort"),
        ("cb://result?status=fail&action=abort&message=later", "other"),
        ("cb://result?status=fail&action=sale&message=declined", ""),
    ])
    func abortOutcomeInJSON(url: String, outcome: String) throws {
        let r = try TillBinary.run(["decode", "--json", url])
        let object = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
        let till = object?["till"] as? [String: Any]
        #expect((till?["abortOutcome"] as? String ?? "") == outcome, "\(url)")
    }

    /// Many answers through standard input (64 KiB blocks, lines split across blocks, CRLF, a line
    /// with no final newline): one JSON object a line, each the same as decoding that URL alone.
    @Test func streamedJSONMatchesOneAtATime() throws {
        var urls: [String] = []
        for i in 0..<1500 {
            urls.append("cb://result?status=\(i % 3 == 0 ? "fail" : "success")&action=sale&amount=\(i)&tipAmount=\(i % 7)"
                + "&message=%22q%22%5C\(i)&cardType=VISA%20%E2%82%AC&referenceNumber=\(String(repeating: "9", count: i % 40))&merchantKey=secret\(i)")
        }
        let input = urls.enumerated().map { $0.offset % 5 == 0 ? $0.element + "\r\n" : $0.element + "\n" }.joined().dropLast()
        let streamed = try runWithFiles(["decode", "--json", "-"], stdin: String(input))
        #expect(streamed.status == 0)
        let lines = streamed.stdout.split(separator: "\n").map(String.init)
        try #require(lines.count == urls.count)
        for i in stride(from: 0, to: urls.count, by: 149) {
            let alone = try TillBinary.run(["decode", "--json", urls[i]]).stdout
            let a = try JSONSerialization.jsonObject(with: Data(alone.utf8)) as? NSDictionary
            let b = try JSONSerialization.jsonObject(with: Data(lines[i].utf8)) as? NSDictionary
            #expect(a != nil && a == b, "line \(i + 1)")
            #expect(!lines[i].contains("secret"), "the merchant key is redacted")
        }
    }
}

/// `till ARGS` with standard input and output in files, not pipes: input and output far larger than a
/// pipe's buffer cannot block each other.
func runWithFiles(_ args: [String], stdin: String) throws -> (status: Int32, stdout: String) {
    let base = NSTemporaryDirectory() + "till-decode-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    defer { unlink(base + ".in"); unlink(base + ".out") }
    try stdin.write(toFile: base + ".in", atomically: false, encoding: .utf8)
    _ = FileManager.default.createFile(atPath: base + ".out", contents: nil)
    let p = Process()
    p.executableURL = URL(fileURLWithPath: TillBinary.path)
    p.arguments = args
    p.standardInput = FileHandle(forReadingAtPath: base + ".in")
    p.standardOutput = FileHandle(forWritingAtPath: base + ".out")
    p.standardError = FileHandle.nullDevice
    try p.run()
    p.waitUntilExit()
    return (p.terminationStatus, (try? String(contentsOfFile: base + ".out", encoding: .utf8)) ?? "")
}
