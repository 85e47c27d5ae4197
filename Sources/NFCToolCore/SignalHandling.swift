import CommandLineKit
import Dispatch
import Foundation

/// Turns termination signals into a call while a command runs: the signals are ignored by the
/// process (so nothing kills it half-way) and `handler` runs on each one; ``stop()`` restores
/// their default action, after which a further signal ends the process at once.
///
/// batch finishes the tags in progress, emulate ends its session, watch ends and waits for the
/// last handler: each decides what "stop" means; the signal plumbing lives here once.
final class SignalTrap {
    private let sources: [(number: Int32, source: any DispatchSourceSignal)]

    /// Traps `signals` (default SIGINT) and calls `handler` on each delivery.
    init(_ signals: [Int32] = [SIGINT], handler: @escaping @Sendable () -> Void) {
        sources = signals.map { number in
            let source = DispatchSource.makeSignalSource(signal: number)
            signal(number, SIG_IGN)
            source.setEventHandler(handler: handler)
            source.resume()
            return (number, source)
        }
    }

    /// Stops trapping: the signals take their default action again.
    func stop() {
        for (number, source) in sources {
            source.cancel()
            signal(number, SIG_DFL)
        }
    }
}
