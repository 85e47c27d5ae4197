import CommandLineKit
import NFCTags

/// Where the NTAG 424 DNA commands (`ntag424 setup`, `sun verify`) take their keys from: the file
/// `--keys` names, else an environment variable holding the same text; never the command line, so
/// no key lands in a shell history or a process listing.
enum KeysFileSupport {
    /// The keys file `path` names, else the text of `variable`.
    /// - Throws: a usage error (64) naming both ways when neither is given; a data error (65)
    ///   naming the source and the line at fault, never a key's digits, when the text is not a
    ///   keys file.
    static func load(path: String?, variable: String, command: String, option: String = "--keys", context: CommandContext) throws(CommandError) -> NTAG424KeyFile {
        let text: String
        let source: String
        if let path {
            text = try readFileText(path, what: "keys file", limit: InputLimits.keyFile)
            source = "keys file '\(path)'"
        } else if let value = context.environment[variable], !value.isEmpty {
            text = value
            source = "$\(variable)"
        } else {
            throw .usage("\(command) needs keys: \(option) FILE, or $\(variable)")
        }
        do { return try NTAG424KeyFile(text: text) } catch { throw .dataError("\(source): \(error.reason)") }
    }
}
