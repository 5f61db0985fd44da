/// Tab completion over a ``CommandTable``: the word before the cursor, when it is the command or
/// its first argument, is completed as far as every candidate agrees (and a space added when
/// only one is left); when nothing more is shared and several remain, they are listed under the
/// line. Static strings and index loops only: Tab never allocates.
enum LineCompletion {
    /// Completes the word before the cursor in `line`, listing the candidates into `out` when
    /// there are several; false when no word matched (nothing to redraw).
    static func complete(_ line: inout LineBuffer, table: CommandTable, listingInto out: inout TerminalOutput) -> Bool {
        // Which word is being completed: the command (no space before the cursor) or its first argument.
        var wordStart = line.cursor
        while wordStart > 0 && line[wordStart - 1] != 0x20 { wordStart -= 1 }
        var commandEnd = 0
        while commandEnd < line.count && line[commandEnd] != 0x20 { commandEnd += 1 }
        var spacesBefore = 0
        var inWord = false
        for index in 0..<wordStart {
            if line[index] == 0x20 { if inWord { spacesBefore += 1 }; inWord = false } else { inWord = true }
        }
        if spacesBefore > 1 { return false }                   // only the command and its first argument
        let cursor = line.cursor
        let found: (word: StaticString, matches: Int, common: Int, prefix: Int)? = line.withBytes { bytes in
            let prefix = UnsafeBufferPointer(rebasing: bytes[wordStart..<cursor])
            let words = wordStart == 0 ? table.names : table.arguments(of: UnsafeBufferPointer(rebasing: bytes[0..<commandEnd]))
            // Plain index loops: no closures capturing counters (those are boxed in debug builds).
            var firstIndex = -1
            var matches = 0
            var common = 0
            for index in 0..<words.count where words[index].hasPrefix(prefix) {
                matches += 1
                if firstIndex < 0 {
                    firstIndex = index
                    common = words[index].utf8CodeUnitCount
                } else {
                    common = min(common, sharedPrefix(words[firstIndex], words[index]))
                }
            }
            guard firstIndex >= 0 else { return nil }
            if matches > 1 && common == prefix.count {
                // Several candidates and nothing more in common: list them under the line.
                out.append("\r\n")
                for index in 0..<words.count where words[index].hasPrefix(prefix) {
                    out.append(words[index])
                    out.append("  ")
                }
                out.append("\r\n")
            }
            return (words[firstIndex], matches, common, prefix.count)
        }
        guard let found else { return false }
        if found.common > found.prefix || found.matches == 1 {
            found.word.withUTF8Buffer { word in
                for position in found.prefix..<found.common { line.insertIfRoom(word[position]) }
            }
            if found.matches == 1 { line.insertIfRoom(0x20) }
        }
        return true
    }

    private static func sharedPrefix(_ a: StaticString, _ b: StaticString) -> Int {
        a.withUTF8Buffer { x in
            b.withUTF8Buffer { y in
                var length = 0
                while length < x.count && length < y.count && x[length] == y[length] { length += 1 }
                return length
            }
        }
    }
}
