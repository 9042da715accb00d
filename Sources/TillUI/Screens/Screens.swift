import TillProtocol
import TillModel

/// One screen of the till: its own keys, its Enter, its drawing, in a file of its own under
/// `Screens/`. Adding a screen: its file, a case in `Screen`, and its line in `Screen.component`.
/// Global keys (F-keys, help, quit), overlays and Esc's abort of a payment in flight are handled
/// before a screen sees a key.
protocol ScreenComponent {
    /// A key action the screen handles (after the global ones).
    static func update(_ state: inout AppState, _ action: KeyAction) -> [Command]
    /// Enter on the screen.
    static func submit(_ state: inout AppState) -> [Command]
    /// Draws the screen's body into `r` (inside its frame).
    static func render(_ state: AppState, _ r: Rect, _ buf: inout ScreenBuffer)
}

extension ScreenComponent {
    static func submit(_ state: inout AppState) -> [Command] { [] }
}

extension Screen {
    /// The registration: which component runs each screen.
    var component: any ScreenComponent.Type {
        switch self {
        case .sale, .preAuth: return PaymentScreen.self
        case .capture, .refund: return FinderScreen.self
        case .batch: return BatchScreen.self
        case .journal: return JournalScreen.self
        case .unresolved: return UnresolvedScreen.self
        case .admin: return AdminScreen.self
        }
    }
}

// Each action's place among the screens. Switches with every action and no `default`: a new action does not build
// until it says here which screen sends it and which form its approval leaves done.
extension Action {
    /// The screen that sends the request: Esc aborts it there, and only there.
    public var screen: Screen {
        switch self {
        case .sale: return .sale
        case .preAuth: return .preAuth
        case .cancel: return .refund
        case .capturePreAuth: return .capture
        case .batch: return .batch
        case .abort, .transactionDetails: return .unresolved
        case .reprintTransaction: return .journal      // reprinted from a journal row
        case .getPrintingSettings, .setPrintingSettings, .sendLogs, .getActivationCode, .activatePos:
            return .admin                              // the terminal's own set-up
        }
    }

    /// The form an approval leaves done, blanked for the next customer. None for a sale's or a pre-auth's (it became
    /// the next customer's when it was sent), for requests sent from a row or a list, and for the admin screen's,
    /// which shows the terminal's settings as they now are.
    var formDoneWhenApproved: Screen? {
        switch self {
        case .cancel, .capturePreAuth, .batch: return screen
        case .sale, .preAuth, .abort, .transactionDetails, .reprintTransaction, .getPrintingSettings, .setPrintingSettings,
             .sendLogs, .getActivationCode, .activatePos:
            return nil
        }
    }
}
