/// Which batch (shift) a report, an export or a look-up is about.
///
/// Typed where a string stood (`"current"`, `"last"`, an id or a name). Text a person types — the CLI's `--batch`
/// and the Batch screen's close field — is read by one function, `BatchKey(text:)`:
/// - `current`, or nothing typed: `.current`;
/// - `last`: `.last`;
/// - anything else: `.idOrName(text)`, as typed (not trimmed, case kept).
///
/// The words `current` and `last` are exact (lower case) and always win: a batch literally named `current` or `last`
/// is reached by its id (`till batches` lists them), never by that name. Every other text names a batch by its id
/// first (ignoring case), then by its name (exactly; the latest batch of that name). The lookup itself is
/// `Journal.findBatch` (TillCore).
public enum BatchKey: Sendable, Hashable, CustomStringConvertible {
    /// The open batch. For a report, the last batch when none is open (a shift just closed still has its report).
    case current
    /// The latest batch, open or closed.
    case last
    /// The batch with this id (ignoring case), as an answer or a report names it; never a name.
    case id(String)
    /// Typed text: the batch with this id (ignoring case), else the latest batch with exactly this name.
    case idOrName(String)

    /// Reads a batch as a person types it (the CLI's `--batch`, the Batch screen's close field).
    public init(text: String) {
        switch text {
        case "", "current": self = .current
        case "last": self = .last
        default: self = .idOrName(text)
        }
    }

    /// As a person would type it: `current`, `last`, or the id or name (read back by `BatchKey(text:)`, it names the
    /// same batch, except an id or a name spelled `current` or `last`, or empty, which no typed text can say).
    public var description: String {
        switch self {
        case .current: return "current"
        case .last: return "last"
        case .id(let s), .idOrName(let s): return s
        }
    }
}

/// How a batch ended. The raw value is the stored form (the `closedHow` of a Z report kept in the journal, and of
/// `till batches --json`) and the words `till report` and `till batches` print: never change one, only add.
public enum BatchCloseReason: String, Sendable, Hashable, Codable, CaseIterable {
    /// Till asked the terminal to close it, and the terminal confirmed.
    case byTill = "closed by till"
    /// Opening a new batch closed it (the terminal keeps one batch open).
    case newBatchOpened = "closed by the terminal when a new batch was opened"
    /// The terminal closed it by itself, 48 hours after it opened (batch.txt:10).
    case autoClose = "closed by the terminal (48-hour auto-close)"
}
