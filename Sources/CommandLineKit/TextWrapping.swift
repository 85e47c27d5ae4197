extension StringProtocol where SubSequence == Substring {
    /// The text wrapped at spaces to lines of at most `columns` characters, every line
    /// indented by `indent` spaces (empty lines stay empty); existing line breaks are kept.
    /// A word longer than a line is left whole. After swift-argument-parser's `wrapped`.
    public func wrapped(to columns: Int, indent: Int = 0) -> String {
        let width = Swift.max(columns - indent, 1)
        var lines: [Substring] = []
        var start = startIndex
        while true {
            let chunk = self[start...].prefix(width)
            if let lineBreak = chunk.lastIndex(of: "\n") {
                lines.append(contentsOf: self[start..<lineBreak].split(separator: "\n", omittingEmptySubsequences: false))
                start = index(after: lineBreak)
            } else if chunk.endIndex == endIndex {
                lines.append(self[start...])
                break
            } else if let space = chunk.lastIndex(of: " ") {
                lines.append(self[start..<space])
                start = index(after: space)
            } else if let space = self[start...].firstIndex(of: " ") {
                lines.append(self[start..<space])
                start = index(after: space)
            } else {
                lines.append(self[start...])
                break
            }
        }
        let padding = String(repeating: " ", count: indent)
        return lines.map { $0.isEmpty ? "" : padding + $0 }.joined(separator: "\n")
    }
}
