import Foundation
import Testing

// `till url` and `till decode`, run as a cashier or a script would: the built binary
// (`swift build --product till` first; ./scripts/test does).

struct RunResult {
    var status: Int32
    var stdout: String
    var stderr: String
}

enum TillBinary {
    /// `<package root>/.build/debug/till`, found from this file's path.
    static let path: String = {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return root.appendingPathComponent(".build/debug/till").path
    }()

    static func run(_ arguments: [String], stdin: String? = nil, environment: [String: String] = [:]) throws -> RunResult {
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw CLIError("no till binary at \(path): run `swift build --product till` first (./scripts/test does)")
        }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: path)
        p.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env.removeValue(forKey: "TILL_MERCHANT_KEY")
        for (k, v) in environment { env[k] = v }
        p.environment = env
        let out = Pipe(), err = Pipe(), input = Pipe()
        p.standardOutput = out
        p.standardError = err
        p.standardInput = input
        try p.run()
        if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
        try input.fileHandleForWriting.close()
        // Read both pipes to the end before waiting, so that a full pipe cannot block the child.
        let group = DispatchGroup()
        nonisolated(unsafe) var errData = Data()
        group.enter()
        DispatchQueue.global().async { errData = err.fileHandleForReading.readDataToEndOfFile(); group.leave() }
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        p.waitUntilExit()
        return RunResult(status: p.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                         stderr: String(decoding: errData, as: UTF8.self))
    }
}

struct CLIError: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
}

private let pagesCaller = ["--merchant-key", "SG23323424EXS3", "--app-id", "com.vivawallet.InterAppDemo"]
private let pagesHead = "vivapayclient://pay/v1?callback=interapp-callback&merchantKey=SG23323424EXS3&appId=com.vivawallet.InterAppDemo"
private let demoHead = "vivapayclient://pay/v1?callback=interapp-callback&merchantKey=DEMO-MERCHANT-KEY&appId=com.example.till"

@Suite("till url")
struct URLCommandTests {
    @Test func reproducesTheSalePagesExample() throws {
        let r = try TillBinary.run(["url", "sale", "--show-secrets", "--amount", "12.00", "--tip", "2.00", "--show-receipt", "false",
                                    "--show-rating", "true", "--no-protocol"] + pagesCaller)
        #expect(r.status == 0)
        #expect(r.stdout == pagesHead + "&action=sale&amount=1200&tipAmount=200&withInstallments=false&show_receipt=false&show_rating=true\n")
        #expect(r.stderr.isEmpty)
    }

    @Test func saleDefaults() throws {
        let r = try TillBinary.run(["url", "sale", "--show-secrets", "--amount", "12,5"])
        #expect(r.status == 0)
        #expect(r.stdout == demoHead + "&action=sale&amount=1250&withInstallments=false&protocol=int_default\n")
    }

    @Test func installmentsAndClientTransactionId() throws {
        let r = try TillBinary.run(["url", "sale", "--show-secrets", "--amount", "12", "--tip", "2", "--installments", "3",
                                    "--client-transaction-id", "order 17&x=1"])
        #expect(r.status == 0)
        #expect(r.stdout == demoHead + "&action=sale&amount=1200&tipAmount=200&clientTransactionId=order%2017%26x%3D1"
            + "&withInstallments=true&preferredInstallments=3&protocol=int_default\n")
    }

    @Test func isvFieldsAndRedaction() throws {
        let args = ["url", "sale", "--show-secrets", "--amount", "10", "--isv-amount", "0.10", "--isv-client-id", "cid", "--isv-client-secret", "qwerty123456",
                    "--isv-source-code", "Default", "--isv-merchant-id", "m1", "--isv-merchant-source-code", "ms",
                    "--isv-customer-trns", "coffee & cake", "--isv-client-transaction-id", "isv-1", "--show-transaction-result", "true"]
        let r = try TillBinary.run(args)
        #expect(r.status == 0)
        #expect(r.stdout == demoHead + "&action=sale&amount=1000&withInstallments=false&ISV_clientId=cid&ISV_amount=10&ISV_clientSecret=qwerty123456"
            + "&ISV_sourceCode=Default&ISV_merchantId=m1&ISV_merchantSourceCode=ms&ISV_customerTrns=coffee%20%26%20cake"
            + "&ISV_clientTransactionId=isv-1&show_transaction_result=true&protocol=int_default\n")
        let red = try TillBinary.run(args.filter { $0 != "--show-secrets" })
        #expect(red.status == 0)
        #expect(!red.stdout.contains("qwerty123456"))
        #expect(!red.stdout.contains("DEMO-MERCHANT-KEY"))
        #expect(red.stdout.contains("ISV_clientSecret=%5Bredacted%5D"))
    }

    @Test func callerFlagsAndEnvironment() throws {
        let env = try TillBinary.run(["url", "abort", "--show-secrets"], environment: ["TILL_MERCHANT_KEY": "ENV-KEY"])
        #expect(env.stdout == "vivapayclient://pay/v1?callback=interapp-callback&merchantKey=ENV-KEY&appId=com.example.till&action=abort\n")
        let flags = try TillBinary.run(["url", "abort", "--show-secrets", "--callback", "mycallbackscheme://result", "--merchant-key", "K", "--app-id", "com.shop.till"],
                                       environment: ["TILL_MERCHANT_KEY": "ENV-KEY"])
        #expect(flags.stdout == "vivapayclient://pay/v1?callback=mycallbackscheme%3A%2F%2Fresult&merchantKey=K&appId=com.shop.till&action=abort\n")
    }

    @Test func abortMatchesThePage() throws {
        let r = try TillBinary.run(["url", "abort", "--show-secrets"] + pagesCaller)
        #expect(r.status == 0)
        #expect(r.stdout == pagesHead + "&action=abort\n")
    }

    @Test(arguments: ["refund", "cancel"])
    func refundAndItsAlias(name: String) throws {
        let r = try TillBinary.run(["url", name, "--show-secrets", "--reference", "833121", "--amount", "6"] + pagesCaller)
        #expect(r.status == 0)
        #expect(r.stdout == pagesHead + "&action=cancel&amount=600&referenceNumber=833121\n")
    }

    @Test func refundWithNothingLetsTheCardholderPick() throws {
        let r = try TillBinary.run(["url", "refund", "--show-secrets"] + pagesCaller)
        #expect(r.status == 0)
        #expect(r.stdout == pagesHead + "&action=cancel\n")
    }

    @Test func captureMatchesThePagesCode() throws {
        // capture-preauth.txt:36 lists `protocol` (int_default): sent by default, as for a sale;
        // --no-protocol gives exactly what the page's code (capture-preauth.txt:41-70) builds.
        let args = ["url", "capture", "--show-secrets", "--amount", "5", "--short-order-code", "1091139195", "--from", "2021-03-29T00:00:00.000+0300",
                    "--show-receipt", "true", "--show-transaction-result", "true"] + pagesCaller
        let r = try TillBinary.run(args)
        #expect(r.status == 0)
        #expect(r.stdout == pagesHead + "&action=capture_pre_auth&amount=500&shortOrderCode=1091139195"
            + "&txnDateFrom=2021-03-29T00%3A00%3A00.000%2B0300&show_receipt=true&show_transaction_result=true&protocol=int_default\n")
        let bare = try TillBinary.run(args + ["--no-protocol"])
        #expect(bare.stdout == pagesHead + "&action=capture_pre_auth&amount=500&shortOrderCode=1091139195"
            + "&txnDateFrom=2021-03-29T00%3A00%3A00.000%2B0300&show_receipt=true&show_transaction_result=true\n")
    }

    @Test func batchOpenAndClose() throws {
        let open = try TillBinary.run(["url", "batch", "--show-secrets", "open", "--name", "a&action=sale"] + pagesCaller)
        #expect(open.status == 0)
        #expect(open.stdout == pagesHead + "&action=batch&command=open&batchName=a%26action%3Dsale\n")
        let close = try TillBinary.run(["url", "batch", "--show-secrets", "close", "--id", "7885F4F1-59CA-42C2-81BB-6DB48AA138A6"] + pagesCaller)
        #expect(close.stdout == pagesHead + "&action=batch&command=close&batchId=7885F4F1-59CA-42C2-81BB-6DB48AA138A6\n")
    }

    @Test func preAuthAndDetails() throws {
        let p = try TillBinary.run(["url", "preauth", "--show-secrets", "--amount", "50", "--client-transaction-id", "order-17"])
        #expect(p.status == 0)
        #expect(p.stdout == demoHead + "&action=pre_auth&amount=5000&clientTransactionId=order-17&protocol=int_default\n")
        let d = try TillBinary.run(["url", "details", "--show-secrets", "--client-transaction-id", "order-17"])
        #expect(d.stdout == demoHead + "&action=transactionDetails&clientTransactionId=order-17\n")
    }

    @Test func everyProblemListedWithExit2() throws {
        let r = try TillBinary.run(["url", "sale", "--show-secrets", "--amount", "12", "--tip", "20", "--installments", "1000", "--isv-client-id", "x"])
        #expect(r.status == 2)
        #expect(r.stdout.isEmpty)
        #expect(r.stderr.contains("The tip (20.00) is more than the amount (12.00)."))
        #expect(r.stderr.contains("Installments must be from 0 to 999"))
        #expect(r.stderr.contains("An ISV client id needs the ISV amount too."))
        #expect(r.stderr.contains("An ISV client id needs the ISV client secret too."))
    }

    @Test func badTypedTextAndRulesTogether() throws {
        let r = try TillBinary.run(["url", "sale", "--show-secrets", "--amount", "abc", "--tip", "1e9", "--installments", "x", "--show-receipt", "maybe",
                                    "--client-transaction-id", String(repeating: "9", count: 65)])
        #expect(r.status == 2)
        let lines = r.stderr.split(separator: "\n")
        #expect(lines.count == 6)
        #expect(r.stderr.contains("Amount: 'abc' is not an amount"))
        #expect(r.stderr.contains("Tip: '1e9' is not an amount: write it out in full"))
        #expect(r.stderr.contains("Installments: 'x' is not a whole number"))
        #expect(r.stderr.contains("Show receipt: 'maybe' is not true or false"))
        #expect(r.stderr.contains("The client transaction id is longer than 64 characters."))
    }

    @Test(arguments: [
        (["url", "sale"], "The amount is missing"),
        (["url", "sale", "--amount", "-3"], "'-3' is negative"),
        (["url", "sale", "--amount", "12.345"], "more than two decimals"),
        (["url", "sale", "--amount", ""], "Enter an amount"),
        (["url", "sale", "--amount", "0"], "The amount must be more than 0."),
        (["url", "sale", "--amount", "99999999"], "largest amount"),
        (["url", "refund", "--reference", "6064612"], "The STAN must be exactly six digits"),
        (["url", "capture"], "Say which pre-authorisation to use"),
        (["url", "capture", "--reference", "833121", "--to", "2021-03-30T00:00:00Z"], "A 'to' date needs a 'from' date too."),
        (["url", "capture", "--order-code", "123"], "The order code must be 10 to 20 digits"),
        (["url", "refund", "--short-order-code", "123"], "The short order code must be exactly ten digits"),
        (["url", "batch", "close", "--id", "nope"], "is not a UUID"),
        (["url", "batch", "open", "--id", "7885F4F1-59CA-42C2-81BB-6DB48AA138A6"], "only be given when closing"),
        (["url", "batch", "shut"], "must be open or close"),
        (["url", "details"], "The client transaction id is missing"),
        (["url", "abort", "--merchant-key", ""], "The merchant key is empty."),
    ])
    func refusals(arguments: [String], message: String) throws {
        let r = try TillBinary.run(arguments)
        #expect(r.status == 2, "\(arguments)")
        #expect(r.stdout.isEmpty)
        #expect(r.stderr.hasPrefix("The request is not valid:\n"))
        #expect(r.stderr.contains(message), "\(r.stderr)")
    }
}

@Suite("till decode")
struct DecodeCommandTests {
    @Test func approvedSaleAsText() throws {
        let r = try TillBinary.run(["decode", PagesCallbacks.approvedSale])
        #expect(r.status == 0)
        let lines = r.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.first == "APPROVED · sale")
        #expect(r.stdout.contains("Amount            12.00 + tip 2.00 = 14.00 charged"))
        #expect(r.stdout.contains("Card              VISA 479275******9999"))
        #expect(r.stdout.contains("STAN              833121"))
        #expect(r.stdout.contains("Order code        9256110059000200"))
        #expect(r.stdout.contains("Date              2019-09-13T12:14:19.8703452+03:00 (2019-09-13 09:14:19 UTC)"))
        #expect(r.stdout.contains("Fields as received (17), from mycallbackscheme://result:"))
        #expect(r.stdout.contains("\n  transactionId=a78e045c-49c3-4743-9071-f1e0ed71810c\n"))
        #expect(!r.stdout.contains("Warnings"))
    }

    @Test func sloppyDeclineAsText() throws {
        let r = try TillBinary.run(["decode", PagesCallbacks.sloppyDecline])
        #expect(r.status == 0)
        #expect(r.stdout.hasPrefix("DECLINED · sale\n"))
        #expect(r.stdout.contains("Message           TRANSACTION_DECLINED_BY_SERVER (code -12)"))
        #expect(r.stdout.contains("Card              Visa Credit 478*********7417"))
        #expect(r.stdout.contains("Warnings (3):"))
        #expect(r.stdout.contains("  - 'cardType' holds an unescaped space"))
    }

    @Test func verdicts() throws {
        let cases: [(String, String)] = [
            (PagesCallbacks.abortedUpper, "ABORTED · abort"), (PagesCallbacks.nothingToAbortCode, "NOTHING TO ABORT · abort"),
            (PagesCallbacks.batchClosed, "BATCH CLOSED · batch"), (PagesCallbacks.batchOpened, "BATCH OPENED · batch"),
            (PagesCallbacks.details, "DETAILS FETCHED · transaction details"), (PagesCallbacks.approvedCancel, "APPROVED · refund (cancel)"),
            (PagesCallbacks.capture, "APPROVED · capture of a pre-authorisation"),
            ("cb://result?status=fail&message=(-4) USER_CANCEL&action=sale", "CANCELLED BY THE USER · sale"),
            ("cb://result?status=pending&action=sale", "NOT APPROVED (status 'pending') · sale"),
        ]
        for (url, headline) in cases {
            let r = try TillBinary.run(["decode", url])
            #expect(r.status == 0)
            #expect(r.stdout.hasPrefix(headline + "\n"), "\(url)")
        }
    }

    @Test func json() throws {
        let r = try TillBinary.run(["decode", "--json", PagesCallbacks.abortedUpper])
        #expect(r.status == 0)
        #expect(r.stdout.hasPrefix("{\n  \"status\": \"fail\",\n  \"message\": \"(-57) ABORTED\",\n  \"action\": \"ABORT\",\n"))
        #expect(r.stdout.contains("\"messageCode\": -57"))
        #expect(r.stdout.contains("\"approved\": false"))
        // It is JSON.
        let object = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
        #expect(object?["tipAmount"] as? String == "0")
        #expect((object?["till"] as? [String: Any])?["abortOutcome"] as? String == "aborted")
    }

    @Test func controlCharactersAreShownNotActedOn() throws {
        let r = try TillBinary.run(["decode", "cb://result?status=success&cardType=VISA%1B[2J%0Aforged"])
        #expect(r.status == 0)
        #expect(!r.stdout.contains("\u{1B}"))
        #expect(r.stdout.contains("VISA\\u{1B}[2J\\u{A}forged"))
    }

    @Test(arguments: [
        ("", "empty"), ("not a url", "not a callback URL"), ("cb://result", "no result fields"),
        ("cb://result?action=sale", "does not say whether it succeeded"),
    ])
    func refusals(input: String, message: String) throws {
        let r = try TillBinary.run(["decode", input])
        #expect(r.status == 2)
        #expect(r.stdout.isEmpty)
        #expect(r.stderr.hasPrefix("till decode: "))
        #expect(r.stderr.contains(message))
    }

    @Test func linesFromStandardInput() throws {
        let input = PagesCallbacks.approvedSale + "\n\n" + "garbage\n" + PagesCallbacks.abortedUpper + "\r\n"
        let text = try TillBinary.run(["decode", "-"], stdin: input)
        #expect(text.status == 2)
        #expect(text.stdout.hasPrefix("APPROVED · sale\n"))
        #expect(text.stdout.contains("\n\nABORTED · abort\n"))
        #expect(text.stderr.contains("line 3: The terminal's answer is not a callback URL"))
        #expect(text.stderr.contains("1 of 3 lines could not be decoded"))
        let json = try TillBinary.run(["decode", "--json", "-"], stdin: PagesCallbacks.approvedSale + "\n" + PagesCallbacks.batchClosed + "\n")
        #expect(json.status == 0)
        let lines = json.stdout.split(separator: "\n")
        #expect(lines.count == 2)
        for l in lines { #expect((try? JSONSerialization.jsonObject(with: Data(l.utf8))) != nil) }
        let none = try TillBinary.run(["decode", "-"], stdin: "\n \n")
        #expect(none.status == 2)
        #expect(none.stderr.contains("no callback URL"))
    }
}
