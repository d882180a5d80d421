#ifndef BGBENCH_CRENAME_SHIM_H
#define BGBENCH_CRENAME_SHIM_H
// renameat2(2) with RENAME_EXCHANGE: Swift's Glibc does not expose it (and cannot call the
// variadic syscall(2)), so this header does. Report folders are swapped into place with it
// (Sources/BGBenchCLI/ReportFolderWriter.swift).
#include <errno.h>
#include <fcntl.h>
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
#endif
