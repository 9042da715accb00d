import ArgumentParser
import Testing
import TillModel
import TillProtocol
@testable import TillUI
@testable import till

/// The screen and the command line read typed text one way (`RequestDraft`): the same refund or capture typed on the
/// screen and given as `till url refund` / `capture` options is the same request. (The screen's capture sent no
/// `protocol` while the command line's did; the screen read dates with a reading of its own.)
@Suite struct OneReadingTests {
    /// The request the screen sends for `keys` typed on `screen` (the box confirmed with y).
    static func fromScreen(_ screen: Screen, stan: String, amount: String?, from: String?) -> Request? {
        var s = AppState(keymap: .standard, size: Size(width: 80, height: 24), nowMs: 1_795_600_000_000, tzOffsetMinutes: 0, transport: "simulator")
        s.batch = BatchInfo(id: "b", name: "Shift", openedAtMs: 1_795_590_000_000, isOpen: true)
        _ = update(&s, .key(screen == .refund ? .f(5) : .f(4)))
        func type(_ t: String) { for c in t { _ = update(&s, .key(.char(c))) } }
        type(stan)
        if let from { for _ in 0..<3 { _ = update(&s, .key(.tab)) }; type(from) }
        if let amount {
            while s.form.focused?.id != .amount { _ = update(&s, .key(.tab)) }
            type(amount)
        }
        var cmds = update(&s, .key(.enter))
        if case .findPayment(let scr, let finder)? = cmds.first {
            cmds = update(&s, .paymentsFound(screen: scr, finder: finder, entries: []))
        }
        cmds = update(&s, .key(.char("y")))
        for c in cmds { if case .perform(let r, _) = c { return r } }
        return nil
    }

    static func fromCommandLine(_ args: [String]) throws -> Request? {
        let command = try Till.parseAsRoot(["url"] + args)
        if let c = command as? URLActionCommand<RefundOptions> { return c.options.draft().request }
        if let c = command as? URLActionCommand<CaptureOptions> { return c.options.draft().request }
        return nil
    }

    @Test(arguments: [("123456", "5.00", nil), ("000042", nil, "2026-11-20"), ("654321", "12,50", "2026-11-20 14:30")] as [(String, String?, String?)])
    func aRefundAndACaptureAreTheSameRequestOnTheScreenAndTheCommandLine(stan: String, amount: String?, from: String?) throws {
        for (screen, command) in [(Screen.refund, "refund"), (.capture, "capture")] {
            var args = [command, "--reference", stan]
            if let amount { args += ["--amount", amount] }
            if let from { args += ["--from", from] }
            let screenRequest = Self.fromScreen(screen, stan: stan, amount: amount, from: from)
            let cliRequest = try Self.fromCommandLine(args)
            #expect(screenRequest != nil && screenRequest == cliRequest, "\(command): screen \(String(describing: screenRequest)), command line \(String(describing: cliRequest))")
        }
    }
}
