import TillModel
import TillProtocol

/// What a payment's life asks its driver to do, in this order, once the event that made them is handled. The driver
/// (the controller, or the virtual-clock simulation) performs them and feeds what came of a send or a give-up back
/// as an event; the life never waits for anything itself.
public enum LifeEffect: Sendable, Hashable {
    /// Hand a request to the transport; the driver feeds back `handedOver(_:)` or `notHandedOver(_:_:)` for `role`.
    case send(requestId: String, url: String, role: SendRole)
    /// The answer being taken is journaled: the transport may drop its copy.
    case acknowledge
    /// The answer being taken is another till's (a till on the same journal and folder is waiting for it): left there.
    case leave
    /// The answer being taken could not be read: set aside with the reason.
    case reject(String)
    /// Take the request back if no peer claimed it (nothing is fed back): a settled entry leaves no request to run late.
    case withdraw(requestId: String)
    /// till gave up waiting: the driver asks the transport (`gaveUp(on:)`) and feeds back `gaveUp(withdrawn:)`.
    case giveUp(requestId: String)
    /// Said to the screens.
    case emit(ControllerEvent)
    /// The flight ended: said to the screens, and the command waiting on it is woken with it.
    case settled(ActionOutcome)
    /// The abort's wait ended (its answer, or none): `abort()` is woken with it.
    case abortEnded(AbortResult)
    /// An entry a wait left open was settled (by a late answer): reported as recovery's.
    case recovered(JournalEntry)
    /// What was settled without the payment's own answer was changed by it: reported, and said loudly.
    case changed(JournalEntry)
    /// A test's crash point (`TILL_CRASH_AT`) of the cashier's own requests.
    case crashPoint(String)
}

/// Which of a flight's requests a send is.
public enum SendRole: Sendable, Hashable {
    /// The request the flight was made for (a payment, a look-up, a batch command, a standalone abort).
    case request
    /// The abort of the payment in flight.
    case abort
    /// The look-up (`transactionDetails`) asked after the abort's "aborted".
    case lookUp
}

/// One callback URL that came in, with what the transport needs to acknowledge it later.
public struct IncomingAnswer: Sendable, Hashable {
    /// The callback URL text (one line, trimmed).
    public var text: String
    /// The transport's handle: the file name in `responses/` for the file drop, nil otherwise.
    public var receipt: String?
    /// The request id the transport associates with it (the file name's `<id>`), if any.
    public var requestIdHint: String?
    public init(text: String, receipt: String? = nil, requestIdHint: String? = nil) {
        self.text = text; self.receipt = receipt; self.requestIdHint = requestIdHint
    }
}

/// Why a request could not be handed over.
public enum TransportError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Certainly not delivered (the folder is unwritable, the bridge could not start).
    case notSent(String)
    /// It may or may not have reached the peer.
    case maybeSent(String)
    public var description: String {
        switch self { case .notSent(let s), .maybeSent(let s): return s }
    }
    /// What the journal says of a request the transport could not hand over: never sent (resolved), or perhaps sent
    /// (unknown: the terminal may have it).
    public var journalState: EntryState { if case .notSent = self { return .resolved }; return .unknown }
}
