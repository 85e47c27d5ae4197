import NFCCore
import NFCTags
import VirtualTags

/// A type 2 tag of 16 pages that records every frame it gets.
final class RecordingType2Tag: VirtualTag {
    let modelName = "test type 2"
    let targetInfo: TargetInfo = .iso14443A(ISO14443ATarget(uid: [0x04, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66], atqa: [0x44, 0x00], sak: 0x00))
    var pages = (0..<16).map { [UInt8](repeating: UInt8($0), count: 4) }
    var frames: [[UInt8]] = []
    var powerOns = 0
    var halts = 0

    func respond(to frame: [UInt8]) -> TagAnswer {
        frames.append(frame)
        switch (frame.first, frame.count) {
        case (0x30, 2):
            guard frame[1] < 16 else { return .nak(0x0) }
            return .data((0..<4).flatMap { pages[(Int(frame[1]) + $0) % 16] })
        case (0xA2, 6):
            guard frame[1] >= 4, frame[1] < 16 else { return .nak(0x0) }
            pages[Int(frame[1])] = Array(frame[2...])
            return .ack
        case (0x60, 1): return .data([0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x11, 0x03])
        default: return .silence
        }
    }
    func powerOn() { powerOns += 1 }
    func halt() { halts += 1 }
}

/// A Classic tag that accepts one key A.
final class TestClassicTag: ClassicVirtualTag {
    let modelName = "test classic"
    let targetInfo: TargetInfo = .iso14443A(ISO14443ATarget(uid: [0xCA, 0xFE, 0xBA, 0xBE], atqa: [0x04, 0x00], sak: 0x08))
    var authenticated = false
    func authenticate(block: UInt8, keyType: ClassicKeyType, key: [UInt8]) -> Bool {
        authenticated = keyType == .a && key == [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]
        return authenticated
    }
    func respond(to frame: [UInt8]) -> TagAnswer {
        guard authenticated, frame.first == 0x30 else { return .nak(0x4) }
        return .data([UInt8](repeating: frame[1], count: 16))
    }
    func powerOn() { authenticated = false }
    func halt() { authenticated = false }
}

/// An ISO-DEP tag that answers every APDU with its reverse and 90 00.
final class EchoISODEPTag: ISODEPVirtualTag {
    let modelName = "test iso-dep"
    let ats: [UInt8] = [0x05, 0x78, 0x80, 0x70, 0x02]
    let targetInfo: TargetInfo = .iso14443A(ISO14443ATarget(uid: [0x08, 0x01, 0x02, 0x03], atqa: [0x04, 0x00], sak: 0x20))
    var apdus: [[UInt8]] = []
    func respond(toAPDU apdu: [UInt8]) -> [UInt8] {
        apdus.append(apdu)
        return apdu.reversed() + [0x90, 0x00]
    }
    func respond(to frame: [UInt8]) -> TagAnswer { .silence }
    func powerOn() {}
    func halt() {}
}

/// An ISO 14443-B tag answering every frame with `90 00`.
final class TestTypeBTag: VirtualTag {
    let modelName = "test type B"
    let targetInfo: TargetInfo = .iso14443B(ISO14443BTarget(pupi: [0x11, 0x22, 0x33, 0x44], applicationData: [0x00, 0x00, 0x00, 0x00], protocolInfo: [0x80, 0x81, 0x71]))
    func respond(to frame: [UInt8]) -> TagAnswer { .data([0x90, 0x00]) }
    func powerOn() {}
    func halt() {}
}

/// A Jewel (Topaz) tag answering RID.
final class TestJewelTag: VirtualTag {
    let modelName = "test jewel"
    let targetInfo: TargetInfo = .jewel(JewelTarget(sensRes: [0x0C, 0x00], id: [0x01, 0x02, 0x03, 0x04]))
    func respond(to frame: [UInt8]) -> TagAnswer { .data([0x11, 0x48, 0x01, 0x02, 0x03, 0x04]) }
    func powerOn() {}
    func halt() {}
}
