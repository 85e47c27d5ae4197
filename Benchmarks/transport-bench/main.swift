// Round trips through a reader: how long one command to a tag takes and how many commands a
// second a reader sustains. Run through `Scripts/bench-transport`, which starts the PN532
// emulator and compares libnfc + emulator with the in-process simulator. Not part of the tests.
//
// Usage: transport-bench --device CONNECTION [--commands N]
// Prints one JSON line: {"device", "commands", "seconds", "commands_per_s", "rtt_us_median",
//                        "rtt_us_p99", "poll_ms"}
import NFCCore
import NFCKit
import NFCTags

#if canImport(Glibc)
import Glibc
#endif

func fail(_ message: String) -> Never {
    var text = "transport-bench: \(message)\n"
    text.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
    exit(1)
}

func milliseconds(_ d: Duration) -> Double {
    Double(d.components.seconds) * 1e3 + Double(d.components.attoseconds) / 1e15
}

@main
struct TransportBench {
    static func main() async {
        var arguments = CommandLine.arguments.dropFirst()
        var device: String? = nil
        var commands = 2000
        while let argument = arguments.popFirst() {
            switch argument {
            case "--device": device = arguments.popFirst()
            case "--commands": commands = arguments.popFirst().flatMap(Int.init) ?? commands
            default: fail("usage: transport-bench --device CONNECTION [--commands N]")
            }
        }
        guard let device else { fail("--device is required") }
        let reader: any NFCReader
        do { reader = try await ReaderConnection.open(device) } catch { fail("cannot open \(device): \(error)") }

        let clock = ContinuousClock()
        let pollStart = clock.now
        let target: TargetInfo?
        do { target = try await reader.poll(for: [.iso14443A], timeout: .seconds(5)) } catch { fail("poll: \(error)") }
        let pollTime = clock.now - pollStart
        guard target != nil else { fail("no tag on \(device)") }

        // READ of page 4 (16 bytes): the most common command of a Type 2 tag session.
        let read = Bytes([0x30, 0x04])
        var samples: [Double] = []
        samples.reserveCapacity(commands)
        let start = clock.now
        for _ in 0..<commands {
            let t0 = clock.now
            do {
                let answer = try await reader.transceive(read, mode: .standard, timeout: .seconds(1))
                guard answer.count == 16 else { fail("READ answered \(answer.count) bytes") }
            } catch {
                fail("READ failed: \(error)")
            }
            samples.append(milliseconds(clock.now - t0) * 1000)
        }
        let total = milliseconds(clock.now - start) / 1000
        await reader.close()
        samples.sort()
        let median = samples[samples.count / 2]
        let p99 = samples[min(samples.count - 1, samples.count * 99 / 100)]
        print(#"{"device":"\#(device)","commands":\#(commands),"seconds":\#(total),"commands_per_s":\#(Double(commands) / total),"rtt_us_median":\#(median),"rtt_us_p99":\#(p99),"poll_ms":\#(milliseconds(pollTime))}"#)
    }
}
