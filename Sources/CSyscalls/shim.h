#ifndef BGBENCH_CSYSCALLS_SHIM_H
#define BGBENCH_CSYSCALLS_SHIM_H
// The system calls Swift's Glibc does not expose, or exposes only as variadic functions
// Swift cannot call (syscall(2), prctl(2)), as small inline functions:
// - renameat2(2) with RENAME_EXCHANGE: report folders are swapped into place with it
//   (Sources/BGBenchCLI/FolderTransaction.swift);
// - prctl(2) with PR_SET_PDEATHSIG: a `bench` workload's child process ends with its
//   parent (Sources/BGBenchCLI/BenchProcess.swift).
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif

/// Atomically exchanges the paths `a` and `b` (both must exist, on one file system).
/// Returns 0, or -1 with errno set (EINVAL or ENOSYS where the kernel or the file system
/// does not support the exchange).
static inline int bgbench_rename_exchange(const char *a, const char *b) {
#ifdef SYS_renameat2
    return (int)syscall(SYS_renameat2, AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE);
#else
    errno = ENOSYS;
    return -1;
#endif
}

/// Asks the kernel to send SIGTERM to this process when the thread that started it ends,
/// and returns 1 without asking if that parent, `parent`, is already gone (this process
/// has been adopted). Returns 0 once asked, or -1 with errno set.
static inline int bgbench_end_with_parent(pid_t parent) {
    if (prctl(PR_SET_PDEATHSIG, SIGTERM) != 0) return -1;
    return getppid() == parent ? 0 : 1;
}
#endif
