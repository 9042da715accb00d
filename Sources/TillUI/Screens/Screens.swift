import TillProtocol
import TillModel

/// One screen of the till: everything it knows, in a file of its own under `Screens/`, on one type. Adding a screen:
/// its file (a type conforming to this: the compiler lists each requirement with no default), a case in `Screen`, and
/// its line in `Screen.component` (`ScreenRegistrationTests` fails until the two agree).
/// Global keys (F-keys, help, quit), overlays and Esc's abort of a payment in flight are handled before a screen sees
/// a key.
protocol ScreenComponent {
    /// The screen it runs.
    static var screen: Screen { get }
    /// Its name: on its tab, in the menu and in what the till says ("back on Pre-auth").
    static var title: String { get }
    /// The key action that opens it from anywhere (its key is in `Keymap.standard` and each shipped keymap).
    static var key: KeyAction { get }
    /// Its form with nothing typed (`Form([])` where it has none); a new customer's, or one blanked when done.
    static var blankForm: Form { get }
    /// The title on its frame as the state is now: what Enter does here, said loudly where it is not a sale.
    static func frameTitle(_ state: AppState) -> String
    /// The frame's title is drawn as a warning: Enter here moves money, but not as a sale does. Default no.
    static var loudTitle: Bool { get }
    /// Its form holds what the cashier typed for a request (not a filter or settings): kept, selected, when the
    /// cashier comes back to it, given back when not sent, and asked about before quitting. Default no.
    static var holdsTyping: Bool { get }
    /// It has a tab on the bar. Default yes.
    static var hasTab: Bool { get }

    /// The cashier is coming here from another screen, still shown (`state.screen` is `from`): what the screen takes
    /// from the one left before its form kept from before is selected (`keepForm`). Default: nothing.
    static func arriving(_ state: inout AppState, from: Screen)
    /// The cashier came here (`from` is where from: this very screen when its key is pressed again), after the form
    /// kept from before was selected (`keepForm`): where the cursor goes, what to load. Default: nothing.
    static func enter(_ state: inout AppState, from: Screen) -> [Command]

    /// A request sent from here ended and its verdict is on the pane (`settle`): what becomes of what was typed here.
    /// Default: nothing.
    static func settled(_ state: inout AppState, _ outcome: ActionOutcome) -> [Command]
    /// After a verdict on a request sent from here, the till goes back to the usual payment screen
    /// (`AppState.homeScreen`), so the next amount and Enter typed by habit are a sale, never a second hold or refund.
    /// Default no.
    static var leavesAfterVerdict: Bool { get }
    /// The terminal approved a request this screen sends (`Action.screen`), whoever sent it: what it said goes on the
    /// screen. Default: nothing.
    static func answered(_ state: inout AppState, _ e: JournalEntry)
    /// What the screen reloads, while it is shown, when the journal changed under it (a request settled, a payment
    /// recovered or resolved). Default: nothing.
    static func journalChanged(_ state: AppState) -> [Command]

    /// Its own functions, first on the function menu (`Menu.build`), each on the next digit. Default: none.
    static func menu(_ state: AppState) -> [(String, MenuCommand)]
    /// Its line on the menu's page of screens (`Menu.screensPage`): the digit that reaches it from every screen (its
    /// F-key's number less one, never moved once shipped: a keypad cashier learns it) and its words. nil: the page
    /// does not list it. Default nil.
    static var menuPageLine: (key: Character, label: String)? { get }

    /// What Enter does here, in the footer's words after the Enter key's name ("send"). Default "send".
    static var submitHint: String { get }
    /// Esc clears the focused field's text (and the footer says "Esc clear") before it goes back. Default yes.
    static var escClearsField: Bool { get }

    /// Another screen's key pressed here (F5 on a journal row refunds that row): what it does instead of going there as
    /// it is. nil: it goes there (`go`). Default nil.
    static func opening(_ state: inout AppState, _ screen: Screen) -> [Command]?
    /// Esc here, with no payment of this screen's in flight: true where the screen
    /// took it (the journal closes its detail), else it clears the focused field or goes back to Sale. Default false.
    static func escape(_ state: inout AppState) -> Bool

    /// A key before any field sees it (after the overlays and the menu key). nil: handled as any other. Default nil.
    static func keyBeforeFields(_ state: inout AppState, _ key: Key) -> [Command]?
    /// Whether a character goes into the focused field now. Default yes.
    static func takesTyping(_ state: AppState) -> Bool
    /// The menu key, where it is a printable one (a keypad's `/`), is typed into a focused field here rather than
    /// opening the menu (secrets may hold one). Default no.
    static var menuKeyIsTyped: Bool { get }
    /// A character that no field took (a letter key of the screen's own). nil: handled as any other. Default nil.
    static func char(_ state: inout AppState, _ ch: Character) -> [Command]?

    /// A key action the screen handles (after the global ones).
    static func update(_ state: inout AppState, _ action: KeyAction) -> [Command]
    /// Enter on the screen.
    static func submit(_ state: inout AppState) -> [Command]
    /// Draws the screen's body into `r` (inside its frame).
    static func render(_ state: AppState, _ r: Rect, _ buf: inout ScreenBuffer)
}

extension ScreenComponent {
    static var loudTitle: Bool { false }
    static var holdsTyping: Bool { false }
    static var hasTab: Bool { true }
    static func arriving(_ state: inout AppState, from: Screen) {}
    static func enter(_ state: inout AppState, from: Screen) -> [Command] { [] }
    static func settled(_ state: inout AppState, _ outcome: ActionOutcome) -> [Command] { [] }
    static var leavesAfterVerdict: Bool { false }
    static func answered(_ state: inout AppState, _ e: JournalEntry) {}
    static func journalChanged(_ state: AppState) -> [Command] { [] }
    static func menu(_ state: AppState) -> [(String, MenuCommand)] { [] }
    static var submitHint: String { "send" }
    static var escClearsField: Bool { true }
    static func opening(_ state: inout AppState, _ screen: Screen) -> [Command]? { nil }
    static func escape(_ state: inout AppState) -> Bool { false }
    static func keyBeforeFields(_ state: inout AppState, _ key: Key) -> [Command]? { nil }
    static func takesTyping(_ state: AppState) -> Bool { true }
    static var menuKeyIsTyped: Bool { false }
    static func char(_ state: inout AppState, _ ch: Character) -> [Command]? { nil }
    static var menuPageLine: (key: Character, label: String)? { nil }
    static func submit(_ state: inout AppState) -> [Command] { [] }

    /// `settled` for a form that stays on its screen while its request is out (a refund's, a capture's, a batch's):
    /// approved, the form was done (`Action.formDoneWhenApproved`); else what was typed stays, selected, so typing
    /// replaces it (a STAN corrected is typed anew).
    static func keepFormUnlessApproved(_ state: inout AppState, _ outcome: ActionOutcome) -> [Command] {
        if case .answered(let e) = outcome, e.state == .approved { return [] }
        keepForm(&state, screen)
        return []
    }
}

extension Screen {
    /// The registration: which component runs each screen.
    var component: any ScreenComponent.Type {
        switch self {
        case .sale: return SaleScreen.self
        case .preAuth: return PreAuthScreen.self
        case .capture: return CaptureScreen.self
        case .refund: return RefundScreen.self
        case .batch: return BatchScreen.self
        case .journal: return JournalScreen.self
        case .unresolved: return UnresolvedScreen.self
        case .admin: return AdminScreen.self
        }
    }

    /// Its name, as its component says it.
    public var title: String { component.title }
    /// The key action that opens it, as its component says it.
    public var action: KeyAction { component.key }
    /// Sale or Pre-auth: a customer's payment is typed here (`PaymentComponent`), with its method and the next
    /// customer's amount typed while the terminal works.
    var takesPayment: Bool { component is any PaymentComponent.Type }
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
