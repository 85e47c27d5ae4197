// Fuzz target `ndef`: the NDEF codec (built and run by `Scripts/fuzz ndef`).
//
// For every input it checks properties that must hold for any bytes whatsoever. A broken
// property traps (`fatalError`), which libFuzzer reports as a crash and saves as an input file.
//
// 1. Strict decoding and lenient decoding never trap.
// 2. They agree: when strict decoding succeeds, lenient decoding returns the same records and
//    no warning; when it fails, lenient decoding's first warning is the same rule at the same
//    offset.
// 3. Round trip: a strictly decoded message encodes (unchunked and chunked), its encoding has
//    the announced `length`, and decoding that encoding gives the same message back:
//    decode(encode(decode(x))) == decode(x).
// 4. Whatever lenient decoding salvaged either fails to encode with an error or round-trips.
// 5. Reading each record of both results as its typed content never traps (errors are fine);
//    content that reads, and builds a record again, reads back the same; the CoreNFC-style
//    accessors (`wellKnownTypeURIPayload()`, `wellKnownTypeTextPayload()`) agree with it.
import NDEF

/// Runs every property on one input.
func checkDecoders(_ bytes: [UInt8]) {
    let lenient = NDEFMessage.decodeLeniently(bytes)
    readContents(of: lenient.message, bytes)

    let strict: NDEFMessage
    do {
        strict = try NDEFMessage(bytes: bytes)
    } catch {
        guard let first = lenient.warnings.first else {
            fail("strict decoding failed with \(error) but lenient decoding saw nothing wrong", bytes)
        }
        guard first.code == error.code, first.offset == error.offset else {
            fail("strict decoding failed with \(error) but lenient decoding's first warning is \(first)", bytes)
        }
        checkSalvagedRoundTrip(lenient.message, bytes)
        return
    }
    guard lenient.warnings.isEmpty, lenient.message == strict else {
        fail("strict decoding succeeded but lenient decoding differs: warnings \(lenient.warnings)", bytes)
    }
    readContents(of: strict, bytes)
    checkRoundTrip(strict, chunkSize: nil, bytes)
    // A chunk size taken from the input, so the fuzzer explores small and large ones.
    checkRoundTrip(strict, chunkSize: Int(bytes.last ?? 0) % 64 + 1, bytes)
}

/// decode(encode(message)) == message, for a message that strict decoding produced.
func checkRoundTrip(_ message: NDEFMessage, chunkSize: Int?, _ input: [UInt8]) {
    let encoded: [UInt8]
    do {
        encoded = try message.encoded(chunkSize: chunkSize)
    } catch {
        fail("a strictly decoded message does not encode (chunk size \(chunkSize.map(String.init) ?? "none")): \(error)", input)
    }
    if chunkSize == nil, encoded.count != message.length {
        fail("encoded \(encoded.count) bytes but length says \(message.length)", input)
    }
    let again: NDEFMessage
    do {
        again = try NDEFMessage(bytes: encoded)
    } catch {
        fail("the re-encoded message does not decode (chunk size \(chunkSize.map(String.init) ?? "none")): \(error)", input)
    }
    guard again == message else {
        fail("round trip changed the message (chunk size \(chunkSize.map(String.init) ?? "none"))", input)
    }
}

/// What lenient decoding salvaged may be unencodable (an error is fine), but if it encodes it
/// must decode back to itself.
func checkSalvagedRoundTrip(_ message: NDEFMessage, _ input: [UInt8]) {
    guard !message.records.isEmpty, let encoded = try? message.encoded() else { return }
    guard let again = try? NDEFMessage(bytes: encoded) else {
        fail("a salvaged message encodes to bytes strict decoding rejects", input)
    }
    guard again == message else { fail("round trip changed a salvaged message", input) }
}

/// Reads every record as its typed content; errors are expected, traps are not. Content that
/// reads and can be built again must read back the same (the typed view is stable), and the
/// CoreNFC-style accessors must agree with it.
func readContents(of message: NDEFMessage, _ input: [UInt8]) {
    for record in message.records {
        let uri = record.wellKnownTypeURIPayload()
        let (text, language) = record.wellKnownTypeTextPayload()
        let content: NDEFContent
        do {
            content = try record.content()
        } catch {
            continue
        }
        switch content {
        case .uri(let expected) where uri != expected:
            fail("wellKnownTypeURIPayload() is \(uri ?? "nil") but content() reads \(expected)", input)
        case .text(let expected) where text != expected.text || language != expected.language:
            fail("wellKnownTypeTextPayload() disagrees with content()", input)
        default:
            break
        }
        guard let rebuilt = try? NDEFPayload(content: content) else { continue }
        let again: NDEFContent
        do {
            again = try rebuilt.content()
        } catch {
            fail("a record built from \(content.kind) content does not read back: \(error)", input)
        }
        guard again == content else { fail("\(content.kind) content changed when built into a record and read back", input) }
    }
}

