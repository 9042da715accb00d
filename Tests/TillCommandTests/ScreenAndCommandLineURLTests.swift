import ArgumentParser
import Testing
import TillModel
import TillProtocol
@testable import TillUI
@testable import till

/// What the Sale and Pre-auth screens send is the URL `till url sale` / `till url pre-auth` prints for the same typed
/// text, compared whole (with the same caller, secrets in clear). Both sides are built in process: the screen by the
/// pure `update`, the command line by parsing `till url …` and building its request as its `run()` prints it.
@Suite struct ScreenAndCommandLineURLTests {
    /// The caller given to both sides, so the URLs can be compared whole.
    static let caller = Caller(callback: "till", merchantKey: "till", appId: "till")

    /// The screen after start-up with nothing to recover and a shift open, its tip read as `tipStyle` says.
    static func readyScreen(tipStyle: TipStyle = .onTop) -> AppState {
        var s = AppState(keymap: .standard, size: Size(width: 80, height: 24), nowMs: 1_795_600_000_000, tzOffsetMinutes: 0, transport: "simulator")
        _ = initialCommands(&s)
        _ = update(&s, .unresolvedLoaded([], recovered: true))
        _ = update(&s, .batchLoaded(BatchInfo(id: "b", name: "Shift", openedAtMs: 1_795_590_000_000, isOpen: true)))
        s.tipStyle = tipStyle
        return s
    }

    /// The request the screen sends when the cashier types each of `fields` (Tab between them), then Enter;
    /// `screen` is the key that opens the form first (nil: Sale, as at start-up).
    static func screenURL(_ fields: [String], opening screen: Key? = nil, tipStyle: TipStyle = .onTop) throws -> String {
        var s = readyScreen(tipStyle: tipStyle)
        if let screen { _ = update(&s, .key(screen)) }
        for (i, text) in fields.enumerated() {
            if i > 0 { _ = update(&s, .key(.tab)) }
            for c in text { _ = update(&s, .key(.char(c))) }
        }
        var request: Request?
        for c in update(&s, .key(.enter)) {
            if case .perform(let r, _) = c { request = r }
            if case .performConfirmed(let r, _, _) = c { request = r }
        }
        let sent = try #require(request, "the screen sent nothing for \(fields)")
        return TerminalRequest(caller: caller, request: sent).url
    }

    /// What `till url <args> --show-secrets` with the same caller prints.
    static func commandLineURL(_ args: [String]) throws -> String {
        let command = try Till.parseAsRoot(["url"] + args + ["--show-secrets", "--callback", "till", "--merchant-key", "till", "--app-id", "till"])
        if let c = command as? URLActionCommand<SaleOptions> { return try c.options.terminalRequest(caller: c.caller.caller()).url }
        if let c = command as? URLActionCommand<PreAuthOptions> { return try c.options.terminalRequest(caller: c.caller.caller()).url }
        throw ValidationError("not a sale or a pre-auth: \(args)")
    }

    // With `tip = "included"` the terminal reads the amount as the total: the screen and `till url sale
    // --tip-style included` both send goods + tip, and agree whole.
    @Test(arguments: [("20", "2"), ("100", "10%"), ("12,50", "")])
    func withTheTipIncludedTheScreenSendsTheURLTheCommandLineDoes(_ amount: String, _ tip: String) throws {
        var args = ["sale", "--amount", amount, "--tip-style", "included"]
        if !tip.isEmpty { args += ["--tip", tip] }
        #expect(try Self.screenURL([amount, tip], tipStyle: .included) == (try Self.commandLineURL(args)))
    }

    @Test(arguments: [
        ("12,5", "", "", ""),
        ("100", "10%", "3", "order-42"),
        ("12.50", "1,25", "0", ""),
    ])
    func screenAndCommandLineBuildTheIdenticalSaleURL(_ amount: String, _ tip: String, _ installments: String, _ reference: String) throws {
        var args = ["sale", "--amount", amount]
        if !tip.isEmpty { args += ["--tip", tip] }
        if !installments.isEmpty { args += ["--installments", installments] }
        if !reference.isEmpty { args += ["--client-transaction-id", reference] }
        let cli = try Self.commandLineURL(args)
        #expect(try Self.screenURL([amount, tip, installments, reference]) == cli)
        #expect(cli.contains("protocol=int_default"))
        #expect(cli.contains("withInstallments="))
    }

    @Test func screenAndCommandLineBuildTheIdenticalPreAuthURL() throws {
        #expect(try Self.screenURL(["50,5"], opening: .f(3)) == (try Self.commandLineURL(["pre-auth", "--amount", "50,5"])))
    }

    /// `till url sale` checks the sale as the tip style it sends reads it, also when reached as `run()` reaches it
    /// (through the generic command): with the tip included, 21474836.00 with a tip of 0.40 sends 21474836.40, which
    /// fits; read on top it would be 21474836.80, too large.
    @Test func urlSaleChecksWithItsOwnTipStyleThroughTheGenericCommand() throws {
        let command = try Till.parseAsRoot(["url", "sale", "--amount", "21474836.00", "--tip", "0.40", "--tip-style", "included",
                                            "--show-secrets", "--callback", "till", "--merchant-key", "till", "--app-id", "till"])
        let c = try #require(command as? URLActionCommand<SaleOptions>)
        func asRunDoes<O: ActionCommandLine>(_ o: O) throws -> TerminalRequest { try o.terminalRequest(caller: Self.caller) }
        let r = try asRunDoes(c.options)
        #expect(r.url.contains("amount=2147483640"), "\(r.url)")
    }
}
