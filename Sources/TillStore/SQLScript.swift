import Foundation

/// Splits SQL text into its statements at the semicolons outside quotes, dollar-quoted bodies and comments: the driver
/// speaks PostgreSQL's extended protocol, which takes one statement at a time, and the schema is kept as whole scripts.
enum SQLScript {
    static func statements(_ sql: String) -> [String] {
        var out: [String] = []
        var current = ""
        let chars = Array(sql)
        var i = 0
        func flush() {
            let s = current.trimmingCharacters(in: .whitespacesAndNewlines)
            if !s.isEmpty, !s.split(separator: "\n").allSatisfy({ $0.trimmingCharacters(in: .whitespaces).hasPrefix("--") }) { out.append(s) }
            current = ""
        }
        while i < chars.count {
            let c = chars[i]
            if c == "-", i + 1 < chars.count, chars[i + 1] == "-" {
                while i < chars.count, chars[i] != "\n" { current.append(chars[i]); i += 1 }
                continue
            }
            if c == "'" {
                current.append(c); i += 1
                while i < chars.count {
                    current.append(chars[i])
                    if chars[i] == "'" {
                        if i + 1 < chars.count, chars[i + 1] == "'" { current.append(chars[i + 1]); i += 2; continue }
                        i += 1; break
                    }
                    i += 1
                }
                continue
            }
            if c == "$" {
                // A dollar-quote tag: $$ or $name$ (a letter or _ first), then everything up to the same tag.
                var j = i + 1
                while j < chars.count, chars[j] == "_" || chars[j].isLetter || (j > i + 1 && chars[j].isNumber) { j += 1 }
                if j < chars.count, chars[j] == "$" {
                    let tag = String(chars[i...j])
                    current += tag
                    i = j + 1
                    let rest = String(chars[i...])
                    if let end = rest.range(of: tag) {
                        current += rest[..<end.upperBound]
                        i += rest.distance(from: rest.startIndex, to: end.upperBound)
                    } else {
                        current += rest
                        i = chars.count
                    }
                    continue
                }
            }
            if c == ";" { flush(); i += 1; continue }
            current.append(c)
            i += 1
        }
        flush()
        return out
    }
}
