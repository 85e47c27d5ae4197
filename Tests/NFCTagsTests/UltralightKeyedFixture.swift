import NDEF
import NFCCore
import NFCTags
import NFCTestSupport
import Testing
import VirtualTags

/// What the MIFARE Ultralight C and Ultralight AES tests share: opening a tag file's state with
/// a fresh reader, the Type 2 view with a key, judging a state's protection from outside (a
/// stranger's writes, which key authenticates), and the tearing sweep of protect (first key and
/// key change). Each chip's suite fills in where its AUTH0 lives and how its key is set.
struct UltralightKeyedFixture<Scheme: UltralightKeyScheme>: Sendable {
    typealias Key = UltralightSecretKey<Scheme>

    /// `Ultralight C`, for the sweep's names.
    let name: String
    /// The byte offset of AUTH0 in memory.
    let auth0Offset: Int
    /// The AUTH0 value from which nothing is protected.
    let auth0Open: Int
    /// A WRITE that turns protection off (AUTH0 to its open value): a stranger must be refused.
    let strangerAUTH0Write: [UInt8]
    /// A factory-fresh chip's state.
    let factory: @Sendable () -> TagState
    /// Sets the key on the MIFARE tag.
    let setKey: @Sendable (inout MiFareTag, Key?) -> Void
    /// Authenticates with the key.
    let authenticate: @Sendable (Type2Tag, Key) async throws -> Void
    /// Protects with the key (the library operation the sweep tears).
    let protect: @Sendable (Type2Tag, Key) async throws(NFCTagError) -> Void

    func open(_ state: TagState) async throws -> (SimulatedReader, MiFareTag) {
        let (reader, target) = try await TearingSweep.open(state, modulations: [.iso14443A])
        guard case .miFare(let tag) = try await NFCTag.connect(to: target, on: reader) else {
            throw NFCTagError(.notSupported, "not a MIFARE tag")
        }
        return (reader, tag)
    }

    func type2(_ tag: MiFareTag, key: Key? = nil) throws -> Type2Tag {
        var tag = tag
        setKey(&tag, key)
        return try #require(tag.type2)
    }

    static func memory(_ state: TagState) throws -> [UInt8] { try Hex.decode(state.memory) }

    /// "open" (AUTH0 off and a stranger writes page 4) or "protected by KEY" when that key
    /// authenticates and a stranger cannot turn AUTH0 off.
    func protection(_ state: TagState, keys: [(String, Key)]) async throws -> String {
        let auth0 = Int(try Self.memory(state)[auth0Offset])
        if auth0 >= auth0Open {
            let (_, tag) = try await open(state)
            do {
                _ = try await tag.reader.transceive(Bytes([0xA2, 0x04, 1, 2, 3, 4]))
                return "open"
            } catch {
                return "corrupt: AUTH0 off, yet a write is refused"
            }
        }
        for (name, key) in keys {
            let (_, tag) = try await open(state)
            if (try? await authenticate(try type2(tag, key: key), key)) != nil {
                let (_, stranger) = try await open(state)
                if (try? await stranger.reader.transceive(Bytes(strangerAUTH0Write))) != nil {
                    return "corrupt: protected, yet a stranger writes AUTH0"
                }
                return "protected by the \(name) key"
            }
        }
        return "corrupt: protected (AUTH0 \(auth0)) by a key nobody knows"
    }

    /// Connects as `nfctool` does, with `key` set.
    func identified(key: Key?) -> (SimulatedReader, TargetInfo) async throws -> any NFCNDEFTag {
        { [setKey] reader, target in
            guard case .miFare(var tag) = try await NFCTag.connect(to: target, on: reader) else {
                throw NFCTagError(.notSupported, "not a MIFARE tag")
            }
            setKey(&tag, key)
            return try #require(tag.type2)
        }
    }

    static var noType2: Type2Tag { Type2Tag(reader: SimulatedReader(tags: [], emptyFieldWait: .zero)) }

    /// Tears protect after and inside every command, first with `key` on a factory chip, then
    /// changing `otherKey` to `key`: every state is open, or protected by exactly the old or the
    /// new key, never by a half-written one.
    func tearingSweep(key: Key, otherKey: Key) async throws {
        let keys = [("new", key), ("old", otherKey), ("factory", Key.factoryDefault)]
        let fresh = factory()
        let protect = self.protect
        let first = try await TearingSweep.run(
            "\(name) first protect", initial: fresh, makeTag: identified(key: nil),
            operation: { tag throws(NFCTagError) in try await protect(tag as? Type2Tag ?? Self.noType2, key) },
            classifyState: { state, _ in try await self.protection(state, keys: keys) })
        #expect(first["open", default: 0] >= 1)
        #expect(first["protected by the new key", default: 0] >= 1)
        #expect(!first.keys.contains { $0.hasPrefix("corrupt") }, "\(first)")

        let (reader, tag) = try await open(fresh)
        try await protect(try type2(tag), otherKey)
        let protectedByOld = try #require(await TearingSweep.state(reader))
        let change = try await TearingSweep.run(
            "\(name) key change", initial: protectedByOld, makeTag: identified(key: otherKey),
            operation: { tag throws(NFCTagError) in try await protect(tag as? Type2Tag ?? Self.noType2, key) },
            classifyState: { state, _ in try await self.protection(state, keys: keys) })
        #expect(change["protected by the old key", default: 0] >= 1)
        #expect(change["open", default: 0] >= 1)
        #expect(change["protected by the new key", default: 0] >= 1)
        #expect(!change.keys.contains { $0.hasPrefix("corrupt") }, "\(change)")
    }
}
