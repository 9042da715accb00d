/// `capture_pre_auth` (capture-preauth.txt): takes a pre-authorised amount, in full or in part.
public enum CaptureAction: ActionDeclaration {
    public static let action = Action.capturePreAuth
    public static let words = ActionWords(name: "capture", answerLabel: "capture of a pre-authorisation",
                                          approved: "Captured: the reserved amount was taken.",
                                          done: ("CAPTURED", "CAPTURED"), notDone: "NOT CAPTURED")
    public static let reportRole = ReportRole.capture
    public static let requestCase = RequestCase<CaptureRequest>({ .capturePreAuth($0) }) { if case .capturePreAuth(let f) = $0 { f } else { nil } }

    public static func check(_ x: CaptureRequest, _ c: inout RequestChecker) {
        c.amount("amount", x.amount, label: "The capture amount", required: false)
        c.finder(x.finder, requireKey: true, what: "pre-authorisation")
        c.text("protocol", x.protocolName, label: "The protocol")
    }

    public static func summary(_ x: CaptureRequest, _ c: SummaryContext) -> String {
        "Capture " + (x.amount.map { c.money($0) } ?? "in full") + x.finder.summary
    }
}
