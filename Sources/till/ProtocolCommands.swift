import ArgumentParser
import Foundation
import TillIO
import TillProtocol

/// `till url` and `till decode`.
let protocolCommands: [any ParsableCommand.Type] = [URLCommand.self, DecodeCommand.self]

// MARK: - till url

/// `till url <action> [flags]`: prints the request URL till would send, or every problem (exit 2).
struct URLCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "url",
        abstract: "Print the request URL till would send to the terminal app.",
        discussion: """
            Amounts are typed as a cashier types them: 12, 12.5, 12.50 or 12,50. Every value is \
            percent-encoded. Exits 0 with the URL on standard output when the request is valid; \
            exits 2 with every problem on standard error when it is not.

            Examples:
              till url sale --amount 12.00 --tip 2.00 --installments 3
              till url refund --reference 833121
              till url capture --short-order-code 1091139195 --from 2021-03-29T00:00:00.000+0300
              till url batch close --name morningShift
              till url sale --amount 12 --payment-method MOTO
              till url reprint --order-code 1091166300000136
              till url printing-settings set --customer-receipt false
              till url activate --activation-code 12345678 --source-id Default --pin-code 1234
            """,
        subcommands: urlActionCommands
    )
}

/// What every `till url <action>` shares: the caller flags, `--show-secrets`, and printing.
/// Secrets are never shown in clear unless asked for (piping the URL to a bridge needs them).
struct URLOutputOptions: ParsableArguments {
    @Flag(help: "Print secrets (merchantKey, ISV_clientSecret, apikey, apiSecret, pinCode) in clear, e.g. to pipe the URL to a bridge; by default they read \(Secrets.placeholder).")
    var showSecrets = false

    init() {}

    /// Prints the URL of a request already validated.
    func emit(_ request: TerminalRequest) {
        print(showSecrets ? request.url : request.redactedURL)
    }
}

// MARK: - till decode

/// `till decode '<callback URL>'` or `till decode -` (one URL a line on standard input).
struct DecodeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decode",
        abstract: "Decode a callback URL from the terminal app into a readable answer.",
        discussion: """
            Prints the verdict (APPROVED, DECLINED, ABORTED, …), a summary, every field as received \
            and what the decoder had to forgive. --json prints the fields under their protocol names \
            for scripts (one object a line when reading standard input). Exits 0 when every URL \
            decodes, 2 when one does not (the reason on standard error). decode reads no config: a tip is read \
            as on top of the amount (sale.txt:26), whatever the config's tip says.
            """)

    @Argument(help: ArgumentHelp("The callback URL (quote it), or - to read one a line from standard input.",
                                 valueName: "callback-url"))
    var url: String

    @Flag(help: "Print JSON (the protocol's field names as keys, then till's own derived values).")
    var json = false

    func run() throws {
        if url != "-" {
            if !decodeOne(url, line: nil, compact: false) { throw ExitCode(2) }
            return
        }
        var lineNumber = 0
        var seen = 0
        var failed = 0
        var stdin = LineReader(fd: STDIN_FILENO)
        while let line = stdin.next() {
            lineNumber += 1
            if line.allSatisfy({ $0 == " " || $0 == "\t" || $0 == "\r" }) { continue }
            seen += 1
            // Text answers are separated by a blank line; JSON answers are one object a line.
            if !decodeOne(line, line: lineNumber, compact: true, separated: !json && seen - failed > 1) { failed += 1 }
        }
        if seen == 0 {
            printToStandardError("till decode: no callback URL on standard input.")
            throw ExitCode(2)
        }
        if failed > 0 {
            Output.shared.flush()
            printToStandardError("till decode: \(failed) of \(seen) lines could not be decoded.")
            throw ExitCode(2)
        }
    }

    /// Decodes and prints one URL (`line`: its line on standard input); false (with the reason on
    /// standard error) when it cannot.
    private func decodeOne(_ text: String, line: Int?, compact: Bool, separated: Bool = false) -> Bool {
        do {
            let r = try CallbackResponse.decode(text)
            if json {
                Output.shared.response(r, indent: compact ? nil : 2)
            } else {
                if separated { out("") }
                out(responseText(r, tipStyle: .onTop))   // decode reads no config: the pages' reading (sale.txt:26)
            }
            return true
        } catch {
            // Standard output first, so a reader sees the answers and the complaints in order.
            Output.shared.flush()
            let prefix = line.map { "till decode: line \($0): " } ?? "till decode: "
            printToStandardError(prefix + error.description)
            return false
        }
    }
}

/// Lines of a file descriptor, read in 64 KiB blocks (not a byte or a line at a time), without their
/// `\n` (or `\r\n`, as `readLine` strips it). A line is decoded as UTF-8 (invalid bytes replaced); a
/// final line without `\n` counts.
struct LineReader {
    let fd: Int32
    private var buffer = [UInt8](repeating: 0, count: 1 << 16)
    private var start = 0, end = 0
    private var carry: [UInt8] = []
    private var eof = false

    init(fd: Int32) { self.fd = fd }

    mutating func next() -> String? {
        while true {
            if start < end {
                let found: Int? = buffer.withUnsafeBufferPointer { p in
                    guard let base = p.baseAddress else { return nil }
                    return memchr(base + start, 0x0A, end - start).map { UnsafeRawPointer($0) - UnsafeRawPointer(base) }
                }
                if let nl = found {
                    let line: String
                    if carry.isEmpty {
                        let stop = nl > start && buffer[nl - 1] == 0x0D ? nl - 1 : nl
                        line = buffer.withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[start..<stop]), as: UTF8.self) }
                    } else {
                        carry.append(contentsOf: buffer[start..<nl])
                        if carry.last == 0x0D { carry.removeLast() }
                        line = String(decoding: carry, as: UTF8.self)
                        carry.removeAll(keepingCapacity: true)
                    }
                    start = nl + 1
                    return line
                }
                carry.append(contentsOf: buffer[start..<end])
                start = end
            }
            if eof {
                guard !carry.isEmpty else { return nil }
                defer { carry.removeAll() }
                return String(decoding: carry, as: UTF8.self)
            }
            guard case .read(let n) = buffer.withUnsafeMutableBytes({ DescriptorReader.readOnce(fd, wake: -1, timeoutMs: -1, into: $0) }) else {
                eof = true; start = 0; end = 0; continue
            }
            start = 0
            end = n
        }
    }
}
