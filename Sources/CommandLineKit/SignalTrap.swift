import Dispatch
public import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Turns termination signals into a call while a command runs: from the moment the trap is made
/// each signal is caught (so nothing kills the process half-way) and `handler` runs once for each
/// delivery; ``stop()`` restores their default action, after which a further signal ends the
/// process at once.
///
/// A command decides what "stop" means (nfctool: batch finishes the tags in progress, emulate
/// ends its session, watch waits for the last handler); the signal plumbing lives here once.
///
/// How: the signal handler (installed with `sigaction` before `init` returns) only writes the
/// signal's number to a pipe, which is async-signal-safe; a dispatch read source on the pipe's
/// other end calls the handlers. A signal that comes before the read source is registered
/// waits in the pipe, so none is lost. (libdispatch's own signal sources were used before: they
/// install their handler asynchronously, on first use only, and a signal ignored until then was
/// dropped — a Ctrl-C right after a command started did nothing.)
public final class SignalTrap: Sendable {
    private let numbers: [Int32]
    private let identifier: Int

    /// Traps `signals` (default SIGINT) and calls `handler` on each delivery, off the signal
    /// handler, on a dispatch queue.
    public init(_ signals: [Int32] = [SIGINT], handler: @escaping @Sendable () -> Void) {
        numbers = signals
        identifier = SignalPipe.shared.add(signals, handler)
        for number in signals { SignalPipe.catchSignal(number) }
    }

    /// Stops trapping: the signals take their default action again (once no other trap holds
    /// them).
    public func stop() {
        let released = SignalPipe.shared.remove(identifier)
        for number in numbers where released.contains(number) { signal(number, SIG_DFL) }
    }
}

/// The write end of the signal pipe, read by the signal handler (an atomic: no lock in a handler).
private let signalPipeWriteEnd = Atomic<Int32>(-1)

/// The one pipe every ``SignalTrap`` shares: the handler writes a byte (the signal's number),
/// a read source hands it to the traps that hold that signal.
private final class SignalPipe: Sendable {
    static let shared = SignalPipe()

    /// The traps there are, by identifier.
    private final class Registry: Sendable {
        struct State {
            var next = 0
            var traps: [Int: (signals: [Int32], handler: @Sendable () -> Void)] = [:]
        }
        let state = Mutex(State())

        /// The handlers of the traps that hold `number`.
        func handlers(of number: Int32) -> [@Sendable () -> Void] {
            state.withLock { $0.traps.values.filter { $0.signals.contains(number) }.map(\.handler) }
        }
    }

    private let registry = Registry()
    /// The read source on the pipe (kept for the process's life).
    private let source: Mutex<any DispatchSourceRead>

    private init() {
        var ends: [Int32] = [-1, -1]
        if pipe(&ends) == 0 {
            // Neither end blocks (a handler never waits) nor reaches a child.
            for end in ends {
                _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
                _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            }
        } else {
            ends = [-1, -1]
        }
        signalPipeWriteEnd.store(ends[1], ordering: .sequentiallyConsistent)
        let reader = DispatchSource.makeReadSource(fileDescriptor: ends[0], queue: DispatchQueue(label: "nfckit.signal-trap"))
        reader.setEventHandler { [registry, readEnd = ends[0]] in
            var bytes = [UInt8](repeating: 0, count: 64)
            let count = bytes.withUnsafeMutableBytes { read(readEnd, $0.baseAddress, $0.count) }
            guard count > 0 else { return }
            for byte in bytes.prefix(count) {
                for handler in registry.handlers(of: Int32(byte)) { handler() }
            }
        }
        reader.resume()
        source = Mutex(reader)
    }

    /// Registers a trap; its identifier.
    func add(_ signals: [Int32], _ handler: @escaping @Sendable () -> Void) -> Int {
        registry.state.withLock { registry in
            registry.next += 1
            registry.traps[registry.next] = (signals, handler)
            return registry.next
        }
    }

    /// Removes a trap; the signals no other trap holds any more.
    func remove(_ identifier: Int) -> Set<Int32> {
        registry.state.withLock { registry in
            guard let removed = registry.traps.removeValue(forKey: identifier) else { return [] }
            let held = Set(registry.traps.values.flatMap(\.signals))
            return Set(removed.signals).subtracting(held)
        }
    }

    /// Installs the handler that writes `number` to the pipe (kept across `read`s: SA_RESTART).
    static func catchSignal(_ number: Int32) {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { number in
            let saved = errno
            var byte = UInt8(truncatingIfNeeded: number)
            _ = write(signalPipeWriteEnd.load(ordering: .sequentiallyConsistent), &byte, 1)
            errno = saved
        }
        sigemptyset(&action.sa_mask)
        action.sa_flags = SA_RESTART
        sigaction(number, &action, nil)
    }
}
