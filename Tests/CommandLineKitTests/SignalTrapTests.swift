import CommandLineKit
import Foundation
import NFCTestSupport
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// How many times a trap's handler ran (the handler runs on a dispatch queue).
private final class Deliveries: Sendable {
    private let count = Atomic<Int>(0)
    func record() { count.add(1, ordering: .sequentiallyConsistent) }
    var value: Int { count.load(ordering: .sequentiallyConsistent) }
}

// Serialized: the tests send SIGUSR1/SIGUSR2 to this very process, and a signal no trap holds
// would end it.
@Suite("SignalTrap: a signal is handled from the moment the trap is made", .serialized, .timeLimit(.minutes(1)))
struct SignalTrapTests {
    @Test("a signal sent the instant after the trap is made reaches the handler (none is dropped while the trap is being set up)")
    func signalRightAfterInstalling() async throws {
        for _ in 0..<20 {
            let deliveries = Deliveries()
            let trap = SignalTrap([SIGUSR1]) { deliveries.record() }
            kill(getpid(), SIGUSR1)
            let came = await eventually(within: .seconds(20)) { deliveries.value == 1 }
            trap.stop()
            #expect(came, "the signal sent right after the trap was made did not reach its handler")
            if !came { return }
        }
    }

    @Test("a second trap of the same signal in one process gets its signals too, and each delivery runs the handler once")
    func trapsOneAfterAnother() async throws {
        for round in 1...3 {
            let deliveries = Deliveries()
            let trap = SignalTrap([SIGUSR2]) { deliveries.record() }
            kill(getpid(), SIGUSR2)
            #expect(await eventually(within: .seconds(20)) { deliveries.value == 1 }, "trap \(round) missed its first signal")
            kill(getpid(), SIGUSR2)
            #expect(await eventually(within: .seconds(20)) { deliveries.value == 2 }, "trap \(round) missed its second signal")
            trap.stop()
        }
    }
}
