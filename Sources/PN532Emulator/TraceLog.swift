import NFCCore
#if canImport(Glibc)
import Glibc
#endif

/// The trace file of `--trace`: one line per frame on the host link and per control event, so
/// tests can count round trips.
///
/// Line format: `2026-11-29T14:30:01.123456Z > D4 4A 01 00` — UTC time with microseconds, a
/// direction (`>` host → PN532, `<` PN532 → host, `#` a control event or a note), then the
/// frame: the hex of TFI and packet data for information frames, or `ACK`, `NACK`, `ERROR`,
/// `BAD <code> at byte <n>` for a frame that failed a check.
public final class TraceLog {
    private let file: UnsafeMutablePointer<FILE>

    /// Opens (truncates) `path` for writing.
    /// - Returns: nil when the file cannot be opened.
    public init?(path: String) {
        guard let file = fopen(path, "w") else { return nil }
        self.file = file
    }

    deinit { fclose(file) }

    /// Writes one line with the current time, flushed at once.
    public func log(_ direction: Character, _ text: String) {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var seconds = now.tv_sec
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func pad(_ value: Int, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        let stamp = "\(pad(Int(parts.tm_year) + 1900, 4))-\(pad(Int(parts.tm_mon) + 1, 2))-\(pad(Int(parts.tm_mday), 2))T"
            + "\(pad(Int(parts.tm_hour), 2)):\(pad(Int(parts.tm_min), 2)):\(pad(Int(parts.tm_sec), 2)).\(pad(Int(now.tv_nsec) / 1000, 6))Z"
        fputs("\(stamp) \(direction) \(text)\n", file)
        fflush(file)
    }

    /// The trace text of a frame: hex of TFI + packet data, or its kind.
    public static func describe(_ frame: PN532Frame) -> String {
        switch frame {
        case .ack: "ACK"
        case .nack: "NACK"
        case .error: "ERROR"
        case .information(let tfi, let data): hex([tfi] + data)
        }
    }

    /// Upper-case hex bytes separated by spaces.
    public static func hex(_ bytes: [UInt8]) -> String {
        Hex.encode(bytes, uppercase: true, separator: " ")
    }
}
