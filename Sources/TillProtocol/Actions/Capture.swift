/// `capture_pre_auth` (capture-preauth.txt): takes a pre-authorised amount, in full or in part.
public enum CaptureAction: ActionDeclaration {
    public static let words = ActionWords(name: "capture", answerLabel: "capture of a pre-authorisation",
                                          approved: "Captured: the reserved amount was taken.",
                                          done: ("CAPTURED", "CAPTURED"), notDone: "NOT CAPTURED")
    public static let reportRole = ReportRole.capture
    public static let findsEarlierPayment: EarlierPayment? = .toCapture
    public static let refundable = true
    public static let requestCase = RequestCase<CaptureRequest>(.capturePreAuth, { .capturePreAuth($0) }) { if case .capturePreAuth(let f) = $0 { f } else { nil } }

    public static func check(_ x: CaptureRequest, _ c: inout RequestChecker) {
        check(x, &c, amount: "The capture amount", what: "pre-authorisation")
    }
    public static func summary(_ x: CaptureRequest, _ c: SummaryContext) -> String { summary(x, c, verb: "Capture") }
}
