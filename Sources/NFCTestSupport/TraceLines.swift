public import NFCTags
import NFCCore

extension TracedCommand {
    /// The exchange as one readable line: `30 04 -> 01 02 …` or `30 04 !! timeout`; raw-mode
    /// commands are marked `(raw)`.
    public var line: String {
        let sent = hexString(command) + (mode == .raw ? " (raw)" : "")
        switch result {
        case .success(let answer): return sent + " -> " + (answer.isEmpty ? "(empty)" : hexString(answer))
        case .failure(let error): return sent + " !! " + error.code.rawValue
        }
    }
}

extension Array where Element == TracedCommand {
    /// Every command as hex (`30 04`), oldest first: to compare a trace with the commands a
    /// datasheet prescribes.
    public var commandLines: [String] { map { hexString($0.command) } }

    /// Every exchange as a ``TracedCommand/line``, oldest first.
    public var lines: [String] { map(\.line) }
}

/// A Type 3 (FeliCa) command in short, for comparing command sequences with the Type 3 Tag
/// specification's procedures: `P 12FC` (Polling, system code), `R 0,1` / `W 3` (Read / Write
/// Without Encryption and their block numbers in hex), else the command code; `malformed` for a
/// block list that does not parse.
public func type3Summary(_ command: [UInt8]) -> String {
    guard let code = command.first else { return "empty" }
    if code == Type3Command.polling, command.count >= 3 { return "P " + Hex.encode(command[1...2], uppercase: true) }
    guard code == Type3Command.readWithoutEncryption || code == Type3Command.writeWithoutEncryption, command.count > 10 else {
        return Hex.encode([code], uppercase: true)
    }
    let services = Int(command[9])
    let countIndex = 10 + 2 * services
    guard countIndex < command.count else { return "malformed" }
    var rest = command[(countIndex + 1)...]
    var blocks: [String] = []
    for _ in 0..<Int(command[countIndex]) {
        guard let element = try? FeliCaBlockListElement.parse(&rest) else { return "malformed" }
        blocks.append(String(element.blockNumber, radix: 16, uppercase: true))
    }
    return (code == Type3Command.readWithoutEncryption ? "R " : "W ") + blocks.joined(separator: ",")
}
