import NFCCore
import NFCTags

/// `reader-trace`: the input is a trace file (docs/traces.md). A trace that parses writes back
/// as JSON lines that parse to the same trace; every recorded request matches itself (with its
/// redacted bytes as sent); a refusal names a line of the input (or the one after it) and an
/// offset inside that line.
func checkReaderTrace(_ bytes: [UInt8]) {
    let trace: ReaderTrace
    do {
        trace = try ReaderTrace.parse(bytes)
    } catch {
        let lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false).count
        if error.line < 1 || error.line > lines + 1 { fail("error line \(error.line) outside 1…\(lines + 1)", bytes) }
        checkOffset(error.offset, within: ReaderTrace.maximumLineLength, "reader trace", bytes)
        return
    }
    let again: ReaderTrace
    do {
        again = try ReaderTrace.parse(Array(trace.jsonLines.utf8))
    } catch {
        fail("a parsed trace does not parse once written back: \(error)", bytes)
    }
    if again != trace { fail("a parsed trace written back parses to another trace", bytes) }
    for event in trace.events {
        switch event.request {
        case .transceive(let command, let mode):
            if !event.request.matches(.transceive(TraceBytes(command.bytes), mode)) { fail("event \(event.number) does not match itself", bytes) }
        default:
            if !event.request.matches(event.request) && !event.request.isRedactedRequest { fail("event \(event.number) does not match itself", bytes) }
        }
    }
}

extension ReaderTraceRequest {
    /// Whether the request holds redacted bytes (which a sent request never does).
    var isRedactedRequest: Bool {
        switch self {
        case .transceive(let bytes, _), .checkCanSend(let bytes, _): bytes.isRedacted
        case .authenticateClassic(_, _, let key, _): key.isRedacted
        default: false
        }
    }
}
