import Synchronization
public import NFCTags

/// The virtual DESFire a write plan (NFCTags' `PlanningReader`) gives the commands to the
/// applications it only creates (NFCTags' `DESFireStandIn`): a factory-fresh
/// ``DESFireVirtualTag`` that the plan's CreateApplications fill, so that what is sent to a
/// planned application — SelectApplication, the authentication with the key it was created
/// with (legacy `0A`, ISO `1A`, AES `AA`, AuthenticateEV2First `71`), the EV1 or EV2 session that
/// follows, CreateStdDataFile, WriteData, ChangeKey — is answered by the chip model's own code,
/// never by the plan. An EV3, so it takes every authentication a DESFire takes (the host sends
/// the one its chip's generation takes); room for files of any size (free memory is the real
/// chip's to judge: the host reads it there before it plans a file). Its random source is the
/// system's: an authentication's randoms are never part of a plan's output.
public final class VirtualDESFireStandIn: DESFireStandIn {
    /// The chip, one command at a time.
    private let chip: Mutex<DESFireVirtualTag>

    /// A stand-in that holds no application yet.
    public init() {
        let tag = DESFireVirtualTag(uid: [0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00], generation: .ev3)
        tag.memory = Self.memory
        chip = Mutex(tag)
    }

    /// The stand-in's memory: 1 MiB, more than any file a DESFire holds.
    public static let memory = 1 << 20

    /// The chip's answer to `apdu`.
    public func respond(toAPDU apdu: [UInt8]) -> [UInt8] {
        chip.withLock { $0.respond(toAPDU: apdu) }
    }

    /// The planned applications as the stand-in holds them (for tests and diagnostics).
    public var applications: [DESFireImage.Application] {
        chip.withLock { $0.image.applications }
    }
}
