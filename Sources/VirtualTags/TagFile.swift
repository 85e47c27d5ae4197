import Foundation
import NFCCore

/// Why a tag file could not be read or written.
public struct TagFileError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, as a stable name.
    public enum Code: String, Sendable, Hashable {
        /// The file exists but could not be read.
        case unreadable
        /// The file is not the JSON a tag file holds.
        case malformed
        /// The file names a model the registry does not know.
        case unknownModel
        /// The state does not fit its model (memory size, UID length, hex).
        case invalidState
        /// The file could not be written.
        case unwritable
    }

    /// The stable code.
    public var code: Code
    /// A human explanation naming the file.
    public var reason: String

    /// Creates an error.
    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    /// "reason [code]".
    public var description: String { "\(reason) [\(code.rawValue)]" }
}

/// A tag file on disk: JSON `{"model": "ntag215", "uid": "04…", "memory": "hex…", …}` holding a
/// ``TagState``. Saved by writing a temporary file beside it and renaming it over the old one,
/// so a crash leaves either the old or the new state; a file named through a symbolic link is
/// saved into the link's target, and the link stays.
public struct TagFile: Sendable, Hashable {
    /// The file's path.
    public let path: String

    /// A tag file at `path` (which need not exist yet).
    public init(path: String) { self.path = path }

    /// Whether the file exists (following a symbolic link).
    public var exists: Bool { FileAccess.fileKind(path) != nil }

    /// The most a tag file may hold: far above the largest tag's state as JSON.
    public static let sizeLimit = 16 << 20

    /// Reads the state.
    /// - Throws: ``TagFileError`` `unreadable` (saying what happened: a directory, no such
    ///   file, larger than ``sizeLimit``) or `malformed`.
    public func load() throws(TagFileError) -> TagState {
        let bytes: [UInt8]
        do { bytes = try FileAccess.read(path, limit: Self.sizeLimit) } catch {
            throw TagFileError(.unreadable, "cannot read tag file \(path): \(error)")
        }
        do { return try JSONDecoder().decode(TagState.self, from: Data(bytes)) } catch {
            throw TagFileError(.malformed, "tag file \(path) is not a tag state (model, uid, memory): \(error)")
        }
    }

    /// Reads the state and makes the tag its model describes.
    /// - Throws: ``TagFileError`` `unreadable`, `malformed`, `unknownModel`, `invalidState`.
    public func loadTag() throws(TagFileError) -> any VirtualTag {
        let state = try load()
        guard let model = TagModel.named(state.model) else {
            throw TagFileError(
                .unknownModel, "tag file \(path) names model '\(state.model)'; known: \(TagModel.knownNames)")
        }
        guard let tag = model.restore(state) else {
            throw TagFileError(.invalidState, "tag file \(path): uid or memory does not fit model \(model.name)")
        }
        return tag
    }

    /// Writes the state, pretty-printed with sorted keys, through ``FileAccess/write(_:to:durable:)``:
    /// atomically (temporary file, then rename) into the file itself, or into the file a
    /// symbolic link names (the link stays a link).
    /// - Throws: ``TagFileError`` `unwritable`.
    public func save(_ state: TagState) throws(TagFileError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        var data: Data
        do { data = try encoder.encode(state) } catch {
            throw TagFileError(.unwritable, "cannot write tag file \(path): \(error.localizedDescription)")
        }
        data.append(0x0A)
        do {
            // Saved after every change the simulator makes: renamed into place, not flushed to disk.
            try FileAccess.write([UInt8](data), to: path, durable: false)
        } catch {
            throw TagFileError(.unwritable, "cannot write tag file \(path): \(error)")
        }
    }
}
