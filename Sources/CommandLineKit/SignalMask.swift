#if canImport(Glibc)
import Glibc
#endif

/// Unblocks SIGTERM, SIGINT and SIGHUP in the calling thread (a program's main thread, first
/// thing at start), so that they reach the program whatever its parent left blocked.
///
/// A child inherits its parent's signal mask. A parent that blocks these signals (the Swift
/// test runner does: libdispatch blocks the signals it watches) hands down a child on which
/// `kill(pid, SIGTERM)` (Foundation's `terminate()`) does nothing; such children outlived the
/// test run. Threads started afterwards inherit the unblocked mask.
public func unblockTerminationSignals() {
    var signals = sigset_t()
    sigemptyset(&signals)
    for number in [SIGTERM, SIGINT, SIGHUP] { sigaddset(&signals, number) }
    pthread_sigmask(SIG_UNBLOCK, &signals, nil)
}
