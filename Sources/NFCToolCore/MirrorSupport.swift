import NDEF
import NFCTags

/// `{mirror:uid}`, `{mirror:counter}` and `{mirror:uid}x{mirror:counter}` in a `--url` of
/// `write`: the message with the placeholder characters, and where they sit in it. The
/// placement rules and the writes live in NFCTags (``NFCTags/NTAGMirrorTemplate``,
/// ``NFCTags/Type2Tag/writeNDEF(_:mirror:at:verify:)``).
enum MirrorSupport {
    /// The record option whose value may hold a mirror placeholder: `--url`.
    static let urlOption = "url"

    /// A message to write with a mirror.
    struct Plan: Sendable {
        /// The message, holding the placeholder characters.
        var message: NDEFMessage
        /// What the chip mirrors.
        var mirror: NTAGMirror
        /// The placeholder's first byte in the encoded message.
        var offset: Int
    }

    /// `value` with its mirror placeholder replaced by the placeholder characters (unchanged
    /// without one), for batch templates.
    static func placeholderText(_ value: String) throws(CommandError) -> String {
        do { return try NTAGMirrorTemplate(value)?.text ?? value } catch { throw .usage("--url '\(value)': \(error.reason)") }
    }

    /// The mirror of the `--url` occurrences, nil without one.
    /// - Throws: a usage error for a malformed placeholder or more than one mirror.
    static func mirror(_ occurrences: [ParsedArguments.Occurrence]) throws(CommandError) -> NTAGMirror? {
        var found: NTAGMirror?
        for occurrence in occurrences where occurrence.option.name == MirrorSupport.urlOption {
            guard let value = occurrence.value else { continue }
            let template: NTAGMirrorTemplate?
            do { template = try NTAGMirrorTemplate(value) } catch { throw .usage("--url '\(value)': \(error.reason)") }
            guard let template else { continue }
            if found != nil { throw .usage("an NTAG21x has one mirror: only one --url may hold {mirror:…}") }
            found = template.mirror
        }
        return found
    }

    /// The mirror plan of the record options `occurrences`, nil when no `--url` has a mirror
    /// placeholder.
    /// - Throws: a usage error for a malformed placeholder or more than one mirror.
    static func plan(_ occurrences: [ParsedArguments.Occurrence], _ context: CommandContext) throws(CommandError) -> Plan? {
        var found: (index: Int, template: NTAGMirrorTemplate)?
        for (index, occurrence) in occurrences.enumerated() where occurrence.option.name == MirrorSupport.urlOption {
            guard let value = occurrence.value else { continue }
            let template: NTAGMirrorTemplate?
            do { template = try NTAGMirrorTemplate(value) } catch { throw .usage("--url '\(value)': \(error.reason)") }
            guard let template else { continue }
            if found != nil { throw .usage("an NTAG21x has one mirror: only one --url may hold {mirror:…}") }
            found = (index, template)
        }
        guard let (index, template) = found else { return nil }
        func message(_ text: String) throws(CommandError) -> NDEFMessage {
            var replaced = occurrences
            replaced[index] = ParsedArguments.Occurrence(option: occurrences[index].option, value: text)
            return NDEFMessage(records: try RecordOptions.records(replaced, context))
        }
        let written = try message(template.text)
        let probe = try message(template.probe)
        do {
            let offset = try template.locate(written: try written.encodedForTag(), probe: try probe.encodedForTag())
            return Plan(message: written, mirror: template.mirror, offset: offset)
        } catch {
            throw .usage(error.reason)
        }
    }
}
