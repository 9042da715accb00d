import ArgumentParser
import Foundation
import TillStore
#if canImport(Glibc)
import Glibc
#endif

struct WatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "A full-screen view of the chain as the back office: today's money per till, when each last pushed, what is open.",
        discussion: "Keys: q (or Esc, Ctrl-C) quits, r reads the store again now. Read-only, as a back-office role.")
    @OptionGroup var store: StoreOptions
    @Option(help: "Seconds between readings of the store.")
    var interval = 5
    @Option(help: "A till not heard from for longer than this many minutes is marked !.")
    var stoppedAfterMinutes = 15

    func run() async throws {
        guard isatty(0) == 1, isatty(1) == 1 else { throw ValidationError("watch needs a terminal; use report or reconcile for output to a file") }
        let office = BackOffice(address: store.address)
        var saved = termios()
        tcgetattr(0, &saved)
        var raw = saved
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO | ISIG)
        tcsetattr(0, TCSANOW, &raw)
        write("\u{1B}[?1049h\u{1B}[?25l")
        defer {
            write("\u{1B}[?25h\u{1B}[?1049l")
            tcsetattr(0, TCSANOW, &saved)
        }
        var problem: String?
        var last: WatchSnapshot?
        while true {
            do { last = try await office.snapshot(); problem = nil } catch { problem = "\(error)" }
            var size = winsize()
            _ = ioctl(1, UInt(TIOCGWINSZ), &size)
            let width = max(20, Int(size.ws_col)), height = max(5, Int(size.ws_row))
            var lines = last.map { WatchScreen.lines($0, width: width, height: height, silentAfter: Int64(stoppedAfterMinutes * 60)) }
                ?? Array(repeating: "", count: height - 1) + [WatchScreen.keysLine]
            if let problem { lines[max(0, lines.count - 2)] = String(("till-sync: " + problem).prefix(width)) }
            write("\u{1B}[H" + lines.map { $0 + "\u{1B}[K" }.joined(separator: "\r\n"))
            // Wait for a key or the next reading.
            var fds = pollfd(fd: 0, events: Int16(POLLIN), revents: 0)
            if poll(&fds, 1, Int32(max(1, interval) * 1000)) > 0 {
                var byte: UInt8 = 0
                if read(0, &byte, 1) == 1, [UInt8(ascii: "q"), UInt8(ascii: "Q"), 0x1B, 0x03].contains(byte) { return }
            }
        }
    }

    func write(_ s: String) { FileHandle.standardOutput.write(Data(s.utf8)) }
}
