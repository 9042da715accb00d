/// Why a request URL could not be read (the simulator answers these with a failure).
public struct RequestParseError: Error, Sendable, Hashable, CustomStringConvertible {
    public var field: String?
    public var message: String
    public init(field: String? = nil, _ message: String) { self.field = field; self.message = message }
    public var description: String { message }
}

extension TerminalRequest {
    /// Reads a request URL back into a typed request: what the terminal app does on receipt.
    public static func parse(_ url: String) throws(RequestParseError) -> TerminalRequest {
        let split: QuerySplit
        do { split = try QuerySplit.split(url) } catch {
            throw RequestParseError("not a request URL (\(error))")
        }
        guard split.target.lowercased() == base else {
            throw RequestParseError("not a request for \(base): '\(split.target)'")
        }
        var map: [String: String] = [:]
        for f in split.fields { map[f.name] = f.value }
        let r = RequestReader(map)
        let caller = Caller(callback: try r.required("callback"), merchantKey: map["merchantKey"] ?? "", appId: map["appId"] ?? "")
        let actionText = try r.required("action")
        guard let action = Action(lenient: actionText) else { throw RequestParseError(field: "action", "unknown action '\(actionText)'") }
        let request = try action.declaration.readRequest(r)
        return TerminalRequest(caller: caller, request: request)
    }
}

extension TerminalRequest {
    /// The fields of a request URL read loosely, for answering one `parse` refused: split at `&` and the first `=`,
    /// percent-decoded, spaces and tabs trimmed, the first of a repeated name kept; nil without a `?`.
    public static func looseFields(_ url: String) -> [String: String]? {
        guard let q = url.firstIndex(of: "?") else { return nil }
        func trimmed(_ s: String) -> String {
            var t = Substring(s)
            while let f = t.first, f == " " || f == "\t" { t = t.dropFirst() }
            while let l = t.last, l == " " || l == "\t" { t = t.dropLast() }
            return String(t)
        }
        var map: [String: String] = [:]
        for part in url[url.index(after: q)...].split(separator: "&") {
            let kv = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let k = trimmed(QueryCodec.decode(String(kv[0])))
            let v = kv.count > 1 ? trimmed(QueryCodec.decode(String(kv[1]))) : ""
            if map[k] == nil { map[k] = v }
        }
        return map
    }
}
