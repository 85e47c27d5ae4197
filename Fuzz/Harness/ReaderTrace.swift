import NFCCore
import NFCTags

/// `reader-trace`: the input is a trace file (docs/traces.md). A trace that parses writes back
/// as JSON lines that parse to the same trace; every recorded request matches itself (with its
/// redacted bytes as sent); redacting its events (``ReaderTraceRedactor``, which reads what tags
/// answered) keeps every length and only hides bytes; a refusal names a line of the input (or the
/// one after it) and an offset inside that line.
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
    var redactor = ReaderTraceRedactor()
    for event in trace.events {
        let (request, result) = redactor.redact(event.request, event.result)
        if !onlyHides(event.request, request) || !onlyHides(event.result, result) { fail("redacting event \(event.number) changed more than hiding bytes", bytes) }
    }
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

/// Whether `redacted` is `original` with some bytes hidden: the same call, the same byte count,
/// every kept byte as it was.
func onlyHides(_ original: ReaderTraceRequest, _ redacted: ReaderTraceRequest) -> Bool {
    if original == redacted { return true }
    switch (original, redacted) {
    case (.transceive(let x, let m), .transceive(let y, let n)), (.checkCanSend(let x, let m), .checkCanSend(let y, let n)):
        return m == n && hides(x, y)
    case (.transceiveUnselected(let x), .transceiveUnselected(let y)):
        return hides(x, y)
    case (.authenticateClassic(let b1, let t1, let k1, let u1), .authenticateClassic(let b2, let t2, let k2, let u2)):
        return b1 == b2 && t1 == t2 && u1 == u2 && hides(k1, k2)
    default:
        return false
    }
}

/// As ``onlyHides(_:_:)`` for a call's result: only an answer's bytes may be hidden.
func onlyHides(_ original: ReaderTraceResult, _ redacted: ReaderTraceResult) -> Bool {
    if original == redacted { return true }
    if case .answer(let x) = original, case .answer(let y) = redacted { return hides(x, y) }
    return false
}

/// Whether `redacted` has `original`'s length and its bytes or `**`.
func hides(_ original: TraceBytes, _ redacted: TraceBytes) -> Bool {
    original.values.count == redacted.values.count && zip(original.values, redacted.values).allSatisfy { $1 == nil || $0 == $1 }
}
