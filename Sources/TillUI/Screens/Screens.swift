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
