import Testing
import TillModel
import TillProtocol
@testable import TillUI

/// A notice is true for as long as it is shown: "Wait: … in flight" goes when the flight ends; and a key typed while
/// the window is too small is never lost in silence.
@Suite struct MessagesTellTheTruthTests {
    @Test func waitInFlightGoesWithTheFlight() {
        var s = readyState()
        type(&s, "4")
        let cmds = press(&s, .enter)
        guard case .perform(_, let summary)? = cmds.first else { Issue.record("not sent"); return }
        // The next customer's amount, Enter while this one is with the terminal: refused, "Wait: … in flight".
        type(&s, "7")
        press(&s, .enter)
        #expect(s.notice?.contains("in flight") == true, "\(s.notice ?? "")")
        _ = update(&s, .performed(.answered(entry(1, cents: 400, response: approvedSaleResponse)), summary: summary))
        #expect(!(s.notice ?? "").contains("in flight"), "\(s.notice ?? "")")
        #expect(!view(s, size: s.size).contains("in flight"), "\(view(s, size: s.size).text)")
    }

    @Test func escAwayFromTheFlightSaysSoUntilItEnds() {
        var s = readyState()
        type(&s, "4")
        let cmds = press(&s, .enter)
        guard case .perform(_, let summary)? = cmds.first else { Issue.record("not sent"); return }
        press(&s, .f(7), .esc)
        #expect(s.notice?.contains("in flight") == true, "\(s.notice ?? "")")
        _ = update(&s, .performed(.answered(entry(1, cents: 400, response: approvedSaleResponse)), summary: summary))
        #expect(!(s.notice ?? "").contains("in flight"), "\(s.notice ?? "")")
    }

    @Test func escFromTheJournalDuringAPreAuthSaysWhereEscAbortsIt() {
        var s = readyState()
        press(&s, .f(3)); type(&s, "8.08")
        let cmds = press(&s, .enter)
        guard case .perform? = cmds.first else { Issue.record("not sent"); return }
        press(&s, .f(7), .esc)
        #expect(s.screen == .sale)
        let notice = s.notice ?? ""
        #expect(notice.contains("Pre-auth € 8.08 is in flight"), "\(notice)")
        // Esc aborts a payment only on the screen that sent it: here on Sale it does not, so the notice does not say so.
        #expect(!notice.contains("aborts it here"), "\(notice)")
        #expect(notice.contains("Pre-auth (F3)"), "\(notice)")
        #expect(!view(s, size: s.size).line(22).contains("…"), "\(view(s, size: s.size).line(22))")
        // What it says is what the keys do.
        #expect(!press(&s, .esc).contains(.abort))
        press(&s, .f(3))
        #expect(press(&s, .esc) == [.abort])
    }

    // MARK: what recovery found, and when

    /// The result pane's text, its lines joined with single spaces.
    func pane(_ s: AppState) -> String { NothingCutTests.pane(s) }

    @Test func whatStartUpRecoveryFoundSaysItWasFoundAtStart() {
        var s = AppState(nowMs: fixedNow, tzOffsetMinutes: 60)
        _ = initialCommands(&s)
        _ = update(&s, .batchLoaded(openBatch))
        _ = update(&s, .event(.recovered(entry(12, cents: 1313, state: .approved, at: fixedNow - 60 * 60_000))))
        #expect(pane(s).contains("WAS CHARGED (found at start)"), "\(view(s, size: s.size).text)")
    }

    @Test func aPaymentFoundChargedLaterInTheRunIsNotSaidToBeFoundAtStart() {
        let unknown = entry(5, cents: 1313, state: .unknown, note: "No answer.")
        var charged = unknown; charged.state = .approved
        // Asked again on Unresolved (`a`).
        var s = readyState()
        _ = update(&s, .unresolvedLoaded([unknown], recovered: false))
        press(&s, .f(8)); press(&s, .char("a"))
        s.nowMs = fixedNow + 5 * 60_000
        _ = update(&s, .event(.recovered(charged)))
        #expect(pane(s).contains("WAS CHARGED"), "\(view(s, size: s.size).text)")
        #expect(!pane(s).contains("at start"), "\(view(s, size: s.size).text)")
        #expect(pane(s).contains("found at 11:05"), "\(view(s, size: s.size).text)")
        // Its own answer arriving late, with nobody asking.
        var late = readyState()
        _ = update(&late, .unresolvedLoaded([unknown], recovered: false))
        _ = update(&late, .event(.recovered(charged)))
        #expect(pane(late).contains("WAS CHARGED") && !pane(late).contains("at start"), "\(view(late, size: late.size).text)")
        var notCharged = unknown; notCharged.state = .declined
        _ = update(&late, .event(.recovered(notCharged)))
        #expect(pane(late).contains("NOT charged") && !pane(late).contains("at start"), "\(view(late, size: late.size).text)")
    }

    @Test func aPreAuthFoundApprovedWasReservedNotCharged() {
        var s = AppState(nowMs: fixedNow, tzOffsetMinutes: 60)
        _ = initialCommands(&s)
        _ = update(&s, .event(.recovered(entry(6, .preAuth, cents: 5000, state: .approved))))
        let text = pane(s)
        #expect(!text.contains("CHARGED"), "\(view(s, size: s.size).text)")
        #expect(text.contains("WAS RESERVED"), "\(view(s, size: s.size).text)")
        #expect(!(s.notice ?? "").contains("CHARGED"), "\(s.notice ?? "")")
    }

    @Test func aNoticeAboutSomethingElseStays() {
        var s = readyState()
        type(&s, "4")
        let cmds = press(&s, .enter)
        guard case .perform(_, let summary)? = cmds.first else { Issue.record("not sent"); return }
        _ = update(&s, .event(.journalProblem("The journal could not record the answer.")))
        _ = update(&s, .performed(.answered(entry(1, cents: 400, response: approvedSaleResponse)), summary: summary))
        #expect(s.notice == "The journal could not record the answer.")
    }

    @Test func keysTypedWhileTooSmallAreNeverLostInSilence() {
        var s = readyState()
        _ = update(&s, .resize(Size(width: 40, height: 12)))
        type(&s, "12")
        press(&s, .enter)
        let small = view(s, size: s.size)
        #expect(small.contains("3 keys not taken"), "\(small.text)")
        #expect(!small.contains("Keys wait"), "\(small.text)")
        _ = update(&s, .resize(Size(width: 80, height: 24)))
        #expect(s.form[.amount] == "", "nothing typed blind")
        #expect(s.notice?.contains("3 keys typed while the window was too small were not taken") == true, "\(s.notice ?? "")")
        #expect(s.noticeIsError)
    }
}
