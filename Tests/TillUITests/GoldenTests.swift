import Foundation
import Testing
import TillTestSupport
import TillModel
import TillProtocol
@testable import TillUI

/// Golden tests: every screen rendered into the cell buffer, as text, plus a map of the attributes a
/// monochrome terminal shows (the theme's fallback). `UPDATE_GOLDEN=1 swift test` rewrites the files.
enum Golden {
    static let dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden")
    static let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func shippedTheme(_ name: String) -> Theme {
        let path = repo.appendingPathComponent("themes/\(name).toml").path
        let text = try! String(contentsOfFile: path, encoding: .utf8)
        return try! Theme.parse(text, file: path, name: name)
    }

    /// One letter per cell for the attributes a monochrome terminal shows.
    static func attrMap(_ buf: ScreenBuffer, theme: Theme) -> String {
        (0..<buf.size.height).map { y -> String in
            var line = ""
            for x in 0..<buf.size.width {
                let a = theme.monoAttrs(buf[x, y])
                let c: Character
                switch (a.contains(.reverse), a.contains(.bold), a.contains(.underline), a.contains(.dim)) {
                case (false, false, false, false): c = "."
                case (true, false, false, _): c = "r"
                case (true, true, false, _): c = "R"
                case (true, _, true, _): c = "X"
                case (false, true, false, _): c = "b"
                case (false, false, true, _): c = "u"
                case (false, true, true, _): c = "U"
                case (false, false, false, true): c = "d"
                }
                line.append(c)
            }
            while line.last == "." { line.removeLast() }
            return line
        }.joined(separator: "\n")
    }

    static func render(_ buf: ScreenBuffer, theme: Theme) -> String {
        "\(buf.size.width)x\(buf.size.height)\n" + buf.text + "\n--- monochrome attributes (\(theme.name)): . none, b bold, r reverse, R reverse+bold, u underline, U bold+underline, X reverse+underline, d dim\n" + attrMap(buf, theme: theme) + "\n"
    }

    static func check(_ name: String, _ buf: ScreenBuffer, theme: Theme = .standard, sourceLocation: SourceLocation = #_sourceLocation) {
        let text = render(buf, theme: theme)
        if let problem = GoldenFile.compare(text, withFileAt: dir.appendingPathComponent(name + ".txt").path) {
            Issue.record("\(problem)\n--- got ---\n\(buf.text)", sourceLocation: sourceLocation)
        }
    }
}

/// The scenes every screen is shown in.
enum Scenes {
    static func all(_ size: Size) -> [(String, AppState)] {
        var out: [(String, AppState)] = []
        func add(_ name: String, _ build: (inout AppState) -> Void) {
            var s = readyState(size: size)
            build(&s)
            out.append((name, s))
        }
        add("sale-empty") { _ in }
        add("sale-filled") { s in type(&s, "12.50"); press(&s, .ctrl("t"), .ctrl("t")); press(&s, .tab, .tab); type(&s, "3"); press(&s, .tab); type(&s, "table 7") }
        add("sale-error") { s in type(&s, "12.345"); press(&s, .enter) }
        add("sale-in-flight") { s in
            type(&s, "12.50"); press(&s, .tab); type(&s, "1.25"); press(&s, .enter)
            _ = update(&s, .event(.inFlight(InFlight(entry: entry(7, state: .sent), startedAtMs: fixedNow, deadlineMs: fixedNow + 90_000))))
            _ = update(&s, .tick(nowMs: fixedNow + 7_300))
        }
        add("sale-abort-requested") { s in
            type(&s, "8.08"); press(&s, .enter)
            _ = update(&s, .event(.inFlight(InFlight(entry: entry(8, cents: 808, state: .sent), startedAtMs: fixedNow, deadlineMs: fixedNow + 90_000))))
            press(&s, .esc)
            _ = update(&s, .tick(nowMs: fixedNow + 2_000))
        }
        add("result-approved") { s in
            type(&s, "12.50"); press(&s, .ctrl("t"), .ctrl("t")); press(&s, .enter)
            _ = update(&s, .performed(.answered(entry(1, cents: 1250, tip: 125, response: approvedSaleResponse)), summary: "Sale € 12.50 + tip 1.25"))
        }
        add("result-declined") { s in
            type(&s, "6.66"); press(&s, .enter)
            _ = update(&s, .performed(.answered(entry(2, cents: 666, state: .declined, response: declinedSaleResponse)), summary: "Sale € 6.66"))
        }
        add("result-aborted") { s in
            type(&s, "8.08"); press(&s, .enter); press(&s, .esc)
            _ = update(&s, .aborted(.answered(.aborted, response("status=fail&message=(-57) ABORTED&action=ABORT"))))
            _ = update(&s, .performed(.answered(entry(3, cents: 808, state: .aborted, response: response("status=fail&message=(-57) ABORTED&action=sale&amount=808"))), summary: "Sale € 8.08"))
        }
        add("result-unknown") { s in
            type(&s, "9.09"); press(&s, .enter)
            _ = update(&s, .performed(.unknown(entry(4, cents: 909, state: .unknown, note: "no answer within 3 s")), summary: "Sale € 9.09"))
            _ = update(&s, .unresolvedLoaded([entry(4, cents: 909, state: .unknown, note: "no answer within 3 s")], recovered: false))
        }
        add("pre-auth") { s in press(&s, .f(3)); type(&s, "50") }
        add("capture-error") { s in press(&s, .f(4)); type(&s, "12345"); press(&s, .tab, .tab, .tab); type(&s, "2026-11-31"); press(&s, .enter) }
        add("refund-confirm") { s in press(&s, .f(5)); type(&s, "654321"); for _ in 0..<5 { press(&s, .tab) }; type(&s, "5"); enterFinding(&s, [entry(1, cents: 1250, tip: 125, response: approvedSaleResponse)]) }
        add("batch") { s in press(&s, .f(6)); type(&s, "Evening") }
        add("batch-none-open") { s in press(&s, .f(6)); _ = update(&s, .batchLoaded(BatchInfo())) }
        add("batch-close-confirm") { s in press(&s, .f(6), .ctrl("k")) }
        add("batch-x-report") { s in press(&s, .f(6)); _ = update(&s, .reportLoaded(sampleReport(), show: false)) }
        add("batch-close-with-unknown") { s in
            press(&s, .f(6))
            _ = update(&s, .unresolvedLoaded([entry(4, cents: 909, state: .unknown, note: "no answer within 90 s")], recovered: false))
            press(&s, .ctrl("k"))
        }
        add("z-report") { s in _ = update(&s, .reportLoaded(sampleReport(kind: .closing), show: true)) }
        add("z-report-exported") { s in
            _ = update(&s, .reportLoaded(sampleReport(kind: .closing), show: true))
            press(&s, .pageDown)
            _ = update(&s, .exported(paths: ["/var/lib/till/exports/Morning-Z-report.csv", "/var/lib/till/exports/Morning-Z-transactions.csv"], error: nil))
        }
        add("journal") { s in
            press(&s, .f(7))
            _ = update(&s, .journalLoaded([
                entry(1, cents: 1250, tip: 125, response: approvedSaleResponse, at: fixedNow - 3_600_000),
                entry(2, cents: 666, state: .declined, response: declinedSaleResponse, at: fixedNow - 3_000_000),
                entry(3, .cancel, cents: 500, response: response("status=success&message=Transaction successful.&action=cancel&amount=500&referenceNumber=654322"), at: fixedNow - 2_000_000),
                entry(4, cents: 909, state: .unknown, note: "no answer", at: fixedNow - 1_000_000),
                entry(5, .batch, cents: nil, response: response("status=success&message=Batch closed&action=batch&command=close&batchName=Morning")),
            ]))
            press(&s, .down)
        }
        add("journal-detail") { s in
            press(&s, .f(7))
            _ = update(&s, .journalLoaded([entry(1, cents: 1250, tip: 125, response: approvedSaleResponse)]))
            press(&s, .enter)
        }
        add("unresolved") { s in
            press(&s, .f(8))
            _ = update(&s, .unresolvedLoaded([entry(4, cents: 909, state: .unknown, note: "no answer within 90 s", at: fixedNow - 86_400_000),
                                              entry(6, .cancel, cents: 500, state: .sent, at: fixedNow - 600_000)], recovered: false))
        }
        add("recovering") { s in _ = initialCommands(&s) }
        add("help") { s in press(&s, .f(1)) }
        add("quit-confirm") { s in type(&s, "8.08"); press(&s, .enter); press(&s, .f(10)) }
        add("sale-moto-installments-48") { s in
            type(&s, "240"); press(&s, .tab, .tab); type(&s, "48"); press(&s, .alt("m"))
        }
        add("journal-reprint-confirm") { s in
            press(&s, .f(7))
            _ = update(&s, .journalLoaded([entry(1, cents: 1250, tip: 125, response: approvedSaleResponse, at: fixedNow - 3_600_000)]))
            press(&s, .ctrl("p"))
        }
        add("admin-confirm") { s in press(&s, .f(11)) }
        add("admin-printing") { s in
            press(&s, .f(11), .char("o"), .enter)
            _ = update(&s, .performed(.answered(entry(20, .getPrintingSettings, cents: nil, response: response("status=success&message=Printing settings&action=getPrintingSettings&isCustomerReceiptEnabled=true&isMerchantReceiptEnabled=true&isPrintingReceiptEnabled=true&printLogoOnMerchantReceipt=false&printVATOnMerchantReceipt=false&isBarcodeEnabled=false&printAddressOnReceipt=false&businessDescriptionEnabled=false&businessDescriptionType=businessName"))), summary: "Printing settings"))
            press(&s, .down, .enter)
        }
        add("admin-activation") { s in
            press(&s, .f(11), .char("o"))
            while AdminScreen.rows[s.admin.row] != .field(.activationCode) { press(&s, .down) }
            type(&s, "48151623"); press(&s, .down); type(&s, "shop-7"); press(&s, .down); type(&s, "2468")
            press(&s, .down); type(&s, "KEY-abc")
        }
        add("transport-problem") { s in _ = update(&s, .event(.transportProblem("bridge exited; restarting"))) }
        return out
    }
}

@Suite struct GoldenTests {
    @Test(arguments: [Size(width: 80, height: 24), Size(width: 120, height: 40)])
    func everyScreen(size: Size) {
        for (name, state) in Scenes.all(size) {
            Golden.check("\(name)-\(size.width)x\(size.height)", view(state, size: size))
        }
    }

    @Test func tooSmallWindowSaysSo() {
        let s = readyState(size: Size(width: 40, height: 12))
        let buf = view(s, size: s.size)
        #expect(buf.contains("Please enlarge the window"))
        Golden.check("too-small-40x12", buf)
    }

    @Test(arguments: ["default", "high-contrast", "monochrome"])
    func shippedThemesMonochromeFallback(theme: String) {
        var s = readyState()
        type(&s, "12.50"); press(&s, .ctrl("t"), .ctrl("t")); press(&s, .enter)
        _ = update(&s, .performed(.answered(entry(1, cents: 1250, tip: 125, response: approvedSaleResponse)), summary: "Sale € 12.50 + tip 1.25"))
        Golden.check("theme-\(theme)-mono-80x24", view(s, size: s.size), theme: Golden.shippedTheme(theme))
        Golden.check("theme-\(theme)-mono-help-120x40", view({ var t = readyState(size: Size(width: 120, height: 40)); press(&t, .f(1)); return t }(),
                                                               size: Size(width: 120, height: 40)), theme: Golden.shippedTheme(theme))
    }

    /// Any size from 1×1 up renders without trapping, every scene.
    @Test func anySizeRenders() {
        let sizes = [Size(width: 1, height: 1), Size(width: 0, height: 0), Size(width: 63, height: 19), Size(width: 64, height: 20),
                     Size(width: 70, height: 21), Size(width: 99, height: 30), Size(width: 100, height: 25), Size(width: 250, height: 80)]
        for size in sizes {
            for (name, var state) in Scenes.all(Size(width: 80, height: 24)) {
                _ = update(&state, .resize(size))
                let buf = view(state, size: size)
                #expect(buf.cells.count == max(0, size.width) * max(0, size.height), "\(name) \(size)")
            }
        }
    }
}
