import ArgumentParser
import TillModel
import TillProtocol

/// `till url capture` and `till capture` (action=capture_pre_auth); its options are a refund's (`FinderOptions`).
struct CaptureOptions: PaymentCommandLine {
    static let help = ActionHelp(
        "capture", title: "Capture",
        url: "Capture a pre-authorisation (action=capture_pre_auth), found by STAN, order code or short order code.",
        urlDiscussion: "The short order code beats the order code, which beats the STAN. No --amount captures the full pre-authorised amount.",
        urlAliases: ["capture_pre_auth", "capture-pre-auth"],
        abstract: "Capture a pre-authorisation.", discussion: "Example: till capture --reference 000002 --amount 60\n" + headlessExitCodesHelp)
    @OptionGroup var finder: FinderOptions
    init() {}
    func draft() -> RequestDraft { finder.draft(capture: true) }
}
