import Foundation

/// Starting a child process with `posix_spawn`, as every child bgbench starts is started
/// (an external policy's process, `bench`'s runs): file descriptors set up by `actions`,
/// the signal mask cleared (a child must not inherit the blocked SIGINT and SIGTERM
/// that bgbench's interruption handling waits on), and the environment given whole.
package enum Spawn {
    /// What the child's descriptors are before it runs.
    package enum Action {
        /// Descriptor `fd` of ours as the child's `target`.
        case dup(_ fd: Int32, to: Int32)
        /// `path` opened with `flags` as the child's `target`.
        case open(_ path: String, flags: Int32, to: Int32)
    }

    /// Starts `program` (looked up on PATH when `searchPath`) with `arguments` (its argv,
    /// the program's name first) and `environment`; with `defaultSIGPIPE`, SIGPIPE back to its default action (this
    /// process ignores it). The child's pid, or the error number it could not start with.
    package static func start(
        _ program: String, arguments: [String], searchPath: Bool, actions: [Action], environment: [String: String],
        defaultSIGPIPE: Bool = false
    ) -> Result<pid_t, Errno> {
        var fileActions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&fileActions)
        defer { posix_spawn_file_actions_destroy(&fileActions) }
        for action in actions {
            switch action {
            case .dup(let fd, let target): posix_spawn_file_actions_adddup2(&fileActions, fd, target)
            case .open(let path, let flags, let target):
                posix_spawn_file_actions_addopen(&fileActions, target, path, flags, 0)
            }
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var mask = sigset_t()
        sigemptyset(&mask)
        posix_spawnattr_setsigmask(&attributes, &mask)
        var flags = POSIX_SPAWN_SETSIGMASK
        if defaultSIGPIPE {
            var defaults = sigset_t()
            sigemptyset(&defaults)
            sigaddset(&defaults, SIGPIPE)
            posix_spawnattr_setsigdefault(&attributes, &defaults)
            flags |= POSIX_SPAWN_SETSIGDEF
        }
        posix_spawnattr_setflags(&attributes, Int16(flags))
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        // Sorted: the child's environment in the same order on every run.
        let envp: [UnsafeMutablePointer<CChar>?] =
            environment.sorted { $0.key < $1.key }.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for p in argv + envp { free(p) } }
        var pid: pid_t = 0
        let result =
            searchPath
            ? posix_spawnp(&pid, program, &fileActions, &attributes, argv, envp)
            : posix_spawn(&pid, program, &fileActions, &attributes, argv, envp)
        return result == 0 ? .success(pid) : .failure(Errno(result))
    }

    /// An error number from a call that returns it (posix_spawn) rather than setting errno.
    package struct Errno: Error {
        package let code: Int32
        init(_ code: Int32) { self.code = code }
        /// The system's text for it (`strerror`).
        package var text: String { String(cString: strerror(code)) }
    }
}
