// libFuzzer harness for every NFCKit parser, built and run by `Scripts/fuzz TARGET`.
//
// One binary holds every target; the environment variable NFCKIT_FUZZ_TARGET picks the one the
// fuzzer drives (libFuzzer passes its own arguments only). Each target feeds the bytes to a
// parser and checks properties that must hold for any input whatsoever; a broken property traps
// (`fatalError`), which libFuzzer reports as a crash and saves as an input file. A trap inside a
// parser (an index out of range, an overflow) is a crash too: parsers must be total.
import Foundation

/// The targets, by the names `Scripts/fuzz` takes.
let targets: [String: @Sendable ([UInt8]) -> Void] = [
    "ndef": checkDecoders,
    "type2-memory": checkType2Memory,
    "type3-attribute": checkType3Attribute,
    "type4-cc": checkType4CapabilityContainer,
    "type5-memory": checkType5Memory,
    "classic-mad": checkClassicMAD,
    "pn532-frame": checkPN532Frames,
    "manifest": checkManifest,
    "template": checkTemplate,
    "sun-url": checkSUNURL,
    "sdm-template": checkSDMTemplate,
    "sdm-picc": checkSDMPICCData,
    "ntag424-settings": checkNTAG424Settings,
    "ntag424-keys": checkNTAG424Keys,
    "ultralight-c": checkUltralightC,
    "ultralight-aes": checkUltralightAES,
    "reader-trace": checkReaderTrace,
    "desfire": checkDESFire,
    "desfire-light": checkDESFireLightSettings,
    "iso15693-identity": checkISO15693Identity,
    "type1-memory": checkType1Memory,
]

/// The target chosen for this process, read once.
let selectedTarget: @Sendable ([UInt8]) -> Void = {
    let name = ProcessInfo.processInfo.environment["NFCKIT_FUZZ_TARGET"] ?? ""
    guard let target = targets[name] else {
        fatalError("NFCKIT_FUZZ_TARGET='\(name)' is not a target; known: \(targets.keys.sorted().joined(separator: ", "))")
    }
    return target
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func nfckitFuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes: [UInt8] = if let data, size > 0 { Array(UnsafeBufferPointer(start: data, count: size)) } else { [] }
    selectedTarget(bytes)
    return 0
}

/// Traps with the property and the input's first bytes in hex.
func fail(_ property: String, _ input: [UInt8]) -> Never {
    let hex = input.prefix(64).map { byte in
        let digits = String(byte, radix: 16)
        return byte < 16 ? "0" + digits : digits
    }.joined()
    fatalError("NFCKit fuzz property broken: \(property)\n  input (\(input.count) bytes): \(hex)\(input.count > 64 ? "…" : "")")
}

/// An error's offset must point into the input or just past its end (where it ran out), or at
/// an address the structure itself named (`limit`).
func checkOffset(_ offset: Int?, within limit: Int, _ what: String, _ input: [UInt8]) {
    guard let offset else { return }
    guard offset >= 0, offset <= limit else { fail("\(what): error offset \(offset) outside 0…\(limit)", input) }
}
