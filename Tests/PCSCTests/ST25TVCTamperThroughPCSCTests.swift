import Foundation
import NFCTestSupport
import Testing

extension PCSCEndToEnd {
    /// The ST25TV02KC's tamper loop end to end: a fresh `nfctool info` reaches a virtual
    /// ST25TV02KC-T behind pcscd and the PC/SC reader emulator, an ACR1552U whose transparent
    /// session carries ST's READ CONFIGURATION. The tag file is written here (docs/simulator.md:
    /// 80 blocks, a lock byte per block, DSFID, AFI, flags, `attributes.tamper`), not by
    /// VirtualTags; the frame is the one of ST's community answer "How to get the tamper status of
    /// ST25TV02KC RFID chip?" (`22 A0 02` UID least significant byte first `03 06`).
    @Suite(
        "ST25TV02KC tamper loop through the real pcscd", .tags(.pcsc, .endToEnd, .emulator), .serialized, .timeLimit(.minutes(3)),
        .enabled(if: PrivatePCSCDaemon.available || isContinuousIntegration, "needs root (a private mount namespace for pcscd's socket), pcscd and vsmartcard-vpcd"))
    struct ST25TVCTamperThroughPCSCTests {
        static let acr1552u = "ACS ACR1552 1S CL Reader PICC"
        /// Not the UID of ST's community trace (`E0 02 08 00 0B 1B 31 E0`): a UID ending in `E0`
        /// as well as beginning with it is taken as the reader gave it by `PCSCReader`'s byte
        /// order rule, and so reversed (a limitation of that rule, not of this chip).
        static let uid: [UInt8] = [0xE0, 0x02, 0x08, 0x00, 0x53, 0x49, 0x4D, 0x01]

        @Test("ST25TV02KC-T with its loop open through an ACR1552U: info names the chip and says open, READ CONFIGURATION 22 A0 02 <UID> 03 06 carried in a Transceive object")
        func tamperOpen() async throws {
            let tool = try Executables.nfctool()
            let daemon = try await PrivatePCSCDaemon(friendlyName: Self.acr1552u)
            defer { daemon.stop() }
            let file = daemon.directory.appendingPathComponent("st25tv02kc.json").path
            var memory: [UInt8] = [0xE1, 0x40, 0x27, 0x01, 0x03, 0x00, 0xFE]
            memory += [UInt8](repeating: 0, count: 320 - memory.count)
            let image = memory + [UInt8](repeating: 0, count: 80 + 3)
            let json: [String: Any] = [
                "model": "st25tv02kc", "uid": Self.uid.map { String(format: "%02X", $0) }.joined(),
                "memory": image.map { String(format: "%02x", $0) }.joined(), "attributes": ["tamper": "open"],
            ]
            try JSONSerialization.data(withJSONObject: json).write(to: URL(fileURLWithPath: file))
            let reader = try await VirtualReaderProcess(tag: "sim:st25tv02kc?file=\(file)", daemon: daemon, profile: "transparent-session")
            defer { reader.stop() }
            let info = try await runTool(tool, ["info", "--device", "pcsc", "--timeout", "5"], environment: daemon.environment, timeout: 30)
            #expect(info.status == 0, "\(info.output)")
            #expect(info.output.contains("ST25TV02KC") && info.output.contains("tamper loop:  open (TD_STATUS 30 30 6F)"), "\(info.output)")
            let frame = "22a002" + Self.uid.reversed().map { String(format: "%02x", $0) }.joined() + "0306"
            let apdus = reader.receivedAPDUs
            #expect(apdus.contains { $0.hasPrefix("ffc20001") && $0.contains(frame) }, "\(apdus)")
            await reader.stopped()
        }
    }
}
