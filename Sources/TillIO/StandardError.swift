#if canImport(Glibc)
import Glibc
#endif

/// Standard error, written with write(2): when it is a terminal that has gone (EIO) or a closed pipe, the message is
/// lost and the program goes on ending as it was, where Foundation's `FileHandle.write` traps (SIGILL).
public enum StandardError {
    public static func write(_ text: String) {
        var bytes = Array(text.utf8)
        var at = 0
        while at < bytes.count {
            let n = bytes.withUnsafeMutableBytes { Glibc.write(2, $0.baseAddress! + at, $0.count - at) }
            if n > 0 { at += n } else if n < 0 && errno == EINTR { continue } else { return }
        }
    }
}
