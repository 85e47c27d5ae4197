import Dispatch
public import Foundation

/// Turns termination signals into a call while a command runs: the signals are ignored by the
/// process (so nothing kills it half-way) and `handler` runs on each one; ``stop()`` restores
/// their default action, after which a further signal ends the process at once.
///
/// A command decides what "stop" means (nfctool: batch finishes the tags in progress, emulate
/// ends its session, watch waits for the last handler); the signal plumbing lives here once.
public final class SignalTrap {
    private let sources: [(number: Int32, source: any DispatchSourceSignal)]

    /// Traps `signals` (default SIGINT) and calls `handler` on each delivery.
    public init(_ signals: [Int32] = [SIGINT], handler: @escaping @Sendable () -> Void) {
        sources = signals.map { number in
            let source = DispatchSource.makeSignalSource(signal: number)
            signal(number, SIG_IGN)
            source.setEventHandler(handler: handler)
            source.resume()
            return (number, source)
        }
    }

    /// Stops trapping: the signals take their default action again.
    public func stop() {
        for (number, source) in sources {
            source.cancel()
            signal(number, SIG_DFL)
        }
    }
}
