import Foundation
import Synchronization

/// Standard output of a command run with `--json` that answers once (not one that streams
/// lines), held until the command ends, so that a failure gives a script one JSON document:
/// the answer with the error object inside it (``merging(_:into:)``), or the error object alone.
/// Standard error, input and the terminal questions pass straight through.
final class JSONAnswerBuffer: ToolIO {
    private let underlying: any ToolIO
    private let held = Mutex<[UInt8]>([])

    /// A buffer in front of `underlying`.
    init(_ underlying: any ToolIO) {
        self.underlying = underlying
    }

    /// Holds standard output; passes standard error on at once.
    func write(_ bytes: [UInt8], to stream: ToolOutputStream) {
        switch stream {
        case .standardOutput: held.withLock { $0.append(contentsOf: bytes) }
        case .standardError: underlying.write(bytes, to: .standardError)
        }
    }

    func readStandardInput(limit: Int) throws(CommandError) -> [UInt8] { try underlying.readStandardInput(limit: limit) }
    func readStandardInputLine() -> String? { underlying.readStandardInputLine() }
    var isStandardInputTerminal: Bool { underlying.isStandardInputTerminal }
    var isStandardOutputTerminal: Bool { underlying.isStandardOutputTerminal }
    var standardErrorTerminalColumns: Int? { underlying.standardErrorTerminalColumns }
    /// Nothing is written before the command ends: the underlying output's failure shows after.
    var standardOutputFailure: OutputFailure? { underlying.standardOutputFailure }

    /// Writes what was held, as it was (the command succeeded).
    func flush() {
        let bytes = held.withLock { held in defer { held = [] }; return held }
        if !bytes.isEmpty { underlying.write(bytes, to: .standardOutput) }
    }

    /// Writes what was held with `error` in it: nothing held, the error object alone; one JSON
    /// object without an `error` key, that object with `error` added as its last key; anything
    /// else, what was held and then the error object on a line of its own.
    func flush(failing error: String) {
        let bytes = held.withLock { held in defer { held = [] }; return held }
        underlying.write(Array(Self.merging(error, into: bytes).utf8), to: .standardOutput)
    }

    /// `errorObject` (`{"error":{…}}` and a newline) merged into the `answer` a command printed.
    static func merging(_ errorObject: String, into answer: [UInt8]) -> String {
        let text = String(decoding: answer, as: UTF8.self)
        guard !text.allSatisfy(\.isWhitespace) else { return errorObject }
        let separate = text + (text.hasSuffix("\n") ? "" : "\n") + errorObject
        guard let object = try? JSONSerialization.jsonObject(with: Data(answer)) as? [String: Any], object["error"] == nil,
              let close = text.lastIndex(of: "}"), text[text.index(after: close)...].allSatisfy(\.isWhitespace),
              let open = errorObject.firstIndex(of: "{"), let end = errorObject.lastIndex(of: "}")
        else { return separate }
        // `"error":{…}` from the object's one key, placed before the answer's closing brace.
        var member = String(errorObject[errorObject.index(after: open)..<end])
        var body = String(text[..<close])
        let pretty = body.hasSuffix("\n")
        // Spaced as the pretty answer's own keys are.
        if pretty, member.hasPrefix("\"error\":") { member = "\"error\" : " + member.dropFirst("\"error\":".count) }
        while body.last?.isWhitespace == true { body.removeLast() }
        let empty = body.hasSuffix("{")
        body += (empty ? "" : ",") + (pretty ? "\n  " : "") + member + (pretty ? "\n" : "") + "}\n"
        return body
    }
}
