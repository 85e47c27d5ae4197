/// What a shell offers when the user presses Tab for an option's value or a positional
/// argument. The completion scripts (``ShellCompletion``) are generated from it.
public enum CompletionKind: Sendable, Hashable {
    /// Nothing: any text (a URL, a number, hex).
    case none
    /// One of these words.
    case words([String])
    /// A file name.
    case file
    /// A directory name.
    case directory
    /// What the tool itself prints, one candidate per line, when run with these arguments
    /// (`["completion", "--list-devices"]`): values known only at completion time.
    case dynamic([String])

    /// The default for a value called `valueName`: a file name when the name mentions a file
    /// (`file`, `key-file`, `file|uri`), a directory for `dir`/`directory`, else nothing.
    public static func inferred(fromValueName valueName: String) -> CompletionKind {
        let words = valueName.lowercased().split { !$0.isLetter }
        if words.contains(where: { $0 == "file" || $0 == "path" }) { return .file }
        if words.contains(where: { $0 == "dir" || $0 == "directory" }) { return .directory }
        return .none
    }
}
