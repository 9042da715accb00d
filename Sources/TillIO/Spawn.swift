#if canImport(Glibc)
import Glibc
#endif
import CSpawn

/// Starts a program with `posix_spawn`, clean: its three standard files and no other descriptor, no signal blocked
/// and every signal's handling at its default in the child. A child inherits the mask of the thread that starts it, and the threads of Swift's pool block nearly every
/// signal: a bridge that never learned of SIGTERM outlived its till, and a tmux server started from a benchmark's
/// thread never learned of its children's end (SIGCHLD blocked) and left them zombies.
public enum Spawn {
    /// Where one of the child's standard files goes.
    public enum File: Sendable {
        case null
        /// Opened with these flags (and mode, when it creates the file).
        case path(String, flags: Int32, mode: mode_t = 0o600)
        /// This descriptor of the parent's.
        case descriptor(Int32)
    }

    /// Starts `argv` (`argv[0]` is the program's path); `newGroup`: in a process group of its own (a Ctrl-C or a
    /// closed window of the parent's group does not reach it, and it can be stopped as a group). `closing`: the
    /// parent's descriptors the child must not keep (the other ends of its pipes). `environment` nil: the parent's.
    /// Returns the child's pid, or the error number.
    public static func start(_ argv: [String], stdin: File = .null, stdout: File = .null, stderr: File = .null,
                             closing: [Int32] = [], newGroup: Bool = false, environment: [String]? = nil) -> Result<pid_t, SpawnError> {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (fd, file) in [(Int32(0), stdin), (1, stdout), (2, stderr)] {
            switch file {
            case .null: posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0)
            case .path(let path, let flags, let mode): posix_spawn_file_actions_addopen(&actions, fd, path, flags, mode)
            case .descriptor(let from): posix_spawn_file_actions_adddup2(&actions, from, fd)
            }
        }
        for fd in closing { posix_spawn_file_actions_addclose(&actions, fd) }
        // Every other descriptor is closed in the child: till's own are close-on-exec, but what till inherited
        // without it (its caller's pipes and sockets) would reach the child, so a bridge that lingers after its
        // till would hold the caller's pipe open and keep a script waiting for till's end.
        till_spawn_close_from(&actions, 3)
        var attr = posix_spawnattr_t()
        posix_spawnattr_init(&attr)
        defer { posix_spawnattr_destroy(&attr) }
        var none = sigset_t(), all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attr, &none)
        posix_spawnattr_setsigdefault(&attr, &all)
        var flags = Int32(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF)
        if newGroup {
            posix_spawnattr_setpgroup(&attr, 0)
            flags |= Int32(POSIX_SPAWN_SETPGROUP)
        }
        posix_spawnattr_setflags(&attr, Int16(flags))
        let cargs: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
        defer { cargs.forEach { free($0) } }
        var pid: pid_t = 0
        let rc: Int32
        if let environment {
            let cenv: [UnsafeMutablePointer<CChar>?] = environment.map { strdup($0) } + [nil]
            defer { cenv.forEach { free($0) } }
            rc = posix_spawn(&pid, argv[0], &actions, &attr, cargs, cenv)
        } else {
            rc = posix_spawn(&pid, argv[0], &actions, &attr, cargs, environ)
        }
        return rc == 0 ? .success(pid) : .failure(SpawnError(code: rc))
    }
}

/// Why a program could not be started: the error number `posix_spawn` returned.
public struct SpawnError: Error, Sendable {
    public var code: Int32
}
