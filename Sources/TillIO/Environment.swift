import Glibc

/// Environment variables by name: the process's own, each read when asked (`getenv`), or given ones (tests).
/// `ProcessInfo.processInfo.environment` copies the whole environment into a new dictionary at every use, for the
/// three or four names till reads.
public struct Environment: Sendable, ExpressibleByDictionaryLiteral {
    private let given: [String: String]?

    /// The process's own environment.
    public static let process = Environment(given: nil)

    private init(given: [String: String]?) { self.given = given }
    public init(_ values: [String: String]) { given = values }
    public init(dictionaryLiteral elements: (String, String)...) {
        given = Dictionary(elements, uniquingKeysWith: { _, last in last })
    }

    public subscript(name: String) -> String? {
        if let given { return given[name] }
        return getenv(name).map { String(cString: $0) }
    }

    /// The variable's value when it is set and not empty (an empty one is taken as not given).
    public func nonEmpty(_ name: String) -> String? { self[name].flatMap { $0.isEmpty ? nil : $0 } }
}
