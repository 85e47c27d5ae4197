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

/// Makes SIGPIPE do nothing in this process (a program's first thing at start): a write to a
/// pipe or FIFO whose reader left then fails with EPIPE, which the writer reports (naming the
/// file, and what was already done), instead of the process dying silently with status 141
/// after it may have changed a tag. A handler that does nothing rather than SIG_IGN, so that
/// programs started from this one (`watch --exec`) get the default action back when they exec.
public func catchBrokenPipes() {
    var action = sigaction()
    action.__sigaction_handler.sa_handler = { _ in }
    sigemptyset(&action.sa_mask)
    action.sa_flags = SA_RESTART
    sigaction(SIGPIPE, &action, nil)
}
