// NDEF codec throughput: encode and decode of three messages, printed as JSON lines.
//
// Run through `Scripts/bench-ndef`, which builds this in release mode, runs the same messages
// through ndeflib (`Scripts/bench_ndef_ndeflib.py`), checks that both encode identical bytes,
// and writes the table to docs/benchmarks.md. Not part of the tests.
//
// What one operation does (the Python script mirrors it; see docs/benchmarks.md):
// - encode: build every record from its fields (`wellKnownTypeURIPayload(url:)`,
//   `wellKnownTypeTextPayload(string:locale:)`, `mimeTypePayload(type:data:)`, with their
//   validation and URI prefix search), then `NDEFMessage.encoded()`. The record copies the
//   existing 4 KiB `Bytes` payload into its own storage.
// - decode: `NDEFMessage(bytes:)` (strict) from `Bytes` (what NFCKit's readers return), then
//   `content()` on every record
//   (URI and Text payloads become Swift strings; MIME records stay a view of the payload).
//
// Usage: ndef-bench [--min-time SECONDS] [--repeats N] [--message url|mime-4k|mixed-30]
//                   [--op encode|decode] [--encodings-only] [--iterations N]
// (--iterations runs N untimed operations, for callgrind's repeatable instruction counts;
// --message and --op narrow the run, e.g. under `perf record` or `valgrind --tool=callgrind`.)
import NDEF
import NFCCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One benchmark message: how to build it from fields, and its name in the output.
struct BenchMessage {
    var name: String
    var build: () throws -> NDEFMessage
}

/// The three messages. Message 2's 4096-byte payload is one Python can rebuild: byte i is
/// (31 i + 7) mod 256. Message 3 interleaves 10 URI, 10 Text (`en`) and 10 `text/plain` records.
func benchMessages() -> [BenchMessage] {
    let shortURL = "https://example.com/t/04A1B2C3D4E5F6"
    let octetStream = Bytes((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
    let mixedURIs = (0..<10).map { $0 % 2 == 0 ? "https://www.example.com/p/\($0)" : "mailto:user\($0)@example.com" }
    let mixedTexts = (0..<10).map { "Record number \($0)" }
    let mixedPlain = (0..<10).map { Bytes(utf8: "plain text payload \($0)") }
    return [
        BenchMessage(name: "url") {
            NDEFMessage(records: [try .wellKnownTypeURIPayload(url: shortURL)])
        },
        BenchMessage(name: "mime-4k") {
            NDEFMessage(records: [try .mimeTypePayload(type: "application/octet-stream", data: octetStream)])
        },
        BenchMessage(name: "mixed-30") {
            var records = [NDEFPayload]()
            records.reserveCapacity(30)
            for i in 0..<10 {
                records.append(try .wellKnownTypeURIPayload(url: mixedURIs[i]))
                records.append(try .wellKnownTypeTextPayload(string: mixedTexts[i], locale: "en"))
                records.append(try .mimeTypePayload(type: "text/plain", data: mixedPlain[i]))
            }
            return NDEFMessage(records: records)
        },
    ]
}

func encodeOnce(_ message: BenchMessage) throws -> Int {
    let bytes = try message.build().encoded()
    return bytes.count &+ Int(bytes[bytes.count >> 1])
}

func decodeOnce(_ bytes: Bytes) throws -> Int {
    let message = try NDEFMessage(bytes: bytes)
    var sum = message.records.count
    for record in message.records {
        switch try record.content() {
        case .uri(let uri): sum &+= uri.utf8.count
        case .text(let text): sum &+= text.text.utf8.count &+ text.language.utf8.count
        case .mime(_, let data): sum &+= data.count
        default: sum &+= 1
        }
    }
    return sum
}

/// Runs `body` in growing batches until `minSeconds` have passed; returns operations per second.
/// Each result of `body` is folded into `checksum`, so no measured work can be optimized away.
func operationsPerSecond(minSeconds: Double, checksum: inout Int, _ body: () throws -> Int) rethrows -> Double {
    let clock = ContinuousClock()
    let minimum = Duration.nanoseconds(Int64(minSeconds * 1e9))
    var operations = 0
    var batch = 1
    let start = clock.now
    var elapsed = Duration.zero
    repeat {
        for _ in 0..<batch { checksum &+= try body() }
        operations += batch
        elapsed = start.duration(to: clock.now)
        batch = min(batch * 2, 1 << 14)
    } while elapsed < minimum
    let (seconds, attoseconds) = elapsed.components
    return Double(operations) / (Double(seconds) + Double(attoseconds) * 1e-18)
}

func hex(_ bytes: [UInt8]) -> String {
    let digits = Array("0123456789abcdef".utf8)
    var out = [UInt8]()
    out.reserveCapacity(bytes.count * 2)
    for byte in bytes {
        out.append(digits[Int(byte >> 4)])
        out.append(digits[Int(byte & 0x0F)])
    }
    return String(decoding: out, as: UTF8.self)
}

/// A number as JSON (finite, no exponent surprises for the glue script).
func json(_ value: Double) -> String { value.isFinite ? "\(value)" : "0" }

func main() throws {
    var minSeconds = 0.5
    var repeats = 3
    var encodingsOnly = false
    var onlyMessage: String? = nil
    var onlyOperation: String? = nil
    var fixedIterations: Int? = nil
    var arguments = CommandLine.arguments.dropFirst()
    while let argument = arguments.popFirst() {
        switch argument {
        case "--min-time":
            guard let value = arguments.popFirst().flatMap(Double.init), value > 0 else { usage() }
            minSeconds = value
        case "--repeats":
            guard let value = arguments.popFirst().flatMap(Int.init), value > 0 else { usage() }
            repeats = value
        case "--message":
            guard let value = arguments.popFirst(), ["url", "mime-4k", "mixed-30"].contains(value) else { usage() }
            onlyMessage = value
        case "--op":
            guard let value = arguments.popFirst(), ["encode", "decode"].contains(value) else { usage() }
            onlyOperation = value
        case "--encodings-only":
            encodingsOnly = true
        case "--iterations":
            guard let value = arguments.popFirst().flatMap(Int.init), value > 0 else { usage() }
            fixedIterations = value
        default:
            usage()
        }
    }

    let messages = benchMessages()
    var checksum = 0
    for message in messages where onlyMessage == nil || onlyMessage == message.name {
        let bytes = try message.build().encoded()
        print(#"{"kind":"encoding","impl":"swift","message":"\#(message.name)","bytes":\#(bytes.count),"records":\#(try message.build().records.count),"hex":"\#(hex(bytes))"}"#)
    }
    if encodingsOnly { return }

    // A fixed number of operations, untimed: for `valgrind --tool=callgrind`, whose
    // instruction counts (total / iterations) are repeatable where wall-clock time is not.
    if let fixedIterations {
        for message in messages where onlyMessage == nil || onlyMessage == message.name {
            let bytes = Bytes(try message.build().encoded())
            for _ in 0..<fixedIterations {
                if onlyOperation != "decode" { checksum &+= try encodeOnce(message) }
                if onlyOperation != "encode" { checksum &+= try decodeOnce(bytes) }
            }
        }
        print(#"{"kind":"checksum","impl":"swift","value":\#(checksum)}"#)
        return
    }

    for message in messages where onlyMessage == nil || onlyMessage == message.name {
        // Decoding starts from `Bytes`, the type NFCKit's readers return (from an `[UInt8]`,
        // `NDEFMessage(bytes:)` first copies the input once).
        let bytes = Bytes(try message.build().encoded())
        // Warm up caches and lazily initialized metadata before timing.
        _ = try operationsPerSecond(minSeconds: minSeconds / 5, checksum: &checksum) { try encodeOnce(message) &+ decodeOnce(bytes) }
        let operations: [(String, () throws -> Int)] = [
            ("encode", { try encodeOnce(message) }),
            ("decode", { try decodeOnce(bytes) }),
        ]
        for (operation, body) in operations where onlyOperation == nil || onlyOperation == operation {
            var best = 0.0
            for _ in 0..<repeats {
                best = max(best, try operationsPerSecond(minSeconds: minSeconds, checksum: &checksum, body))
            }
            let megabytes = best * Double(bytes.count) / 1e6
            print(#"{"kind":"result","impl":"swift","message":"\#(message.name)","op":"\#(operation)","bytes":\#(bytes.count),"messages_per_s":\#(json(best)),"mb_per_s":\#(json(megabytes)),"ns_per_message":\#(json(1e9 / best))}"#)
        }
    }
    print(#"{"kind":"checksum","impl":"swift","value":\#(checksum)}"#)
}

func usage() -> Never {
    var text = """
        Usage: ndef-bench [--min-time SECONDS] [--repeats N] [--message url|mime-4k|mixed-30]
                          [--op encode|decode] [--encodings-only] [--iterations N]

        """
    text.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
    exit(64)
}

try main()
