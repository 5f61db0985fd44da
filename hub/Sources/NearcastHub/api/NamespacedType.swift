/// A namespaced type, `NAMESPACE/TYPE`, and the filters of `getforobserved` and the list calls.
///
/// A project owns the namespace of its own name: its attachments carry `PROJECT/TYPE`, and its
/// filters can only ever match those.
package enum NamespacedType {
    /// Checks `PROJECT/TYPE`: the namespace is the caller's project, the type 1-64 bytes of UTF-8
    /// (bytes, not characters: one "character" can carry any number of combining marks) of
    /// visible characters (`VisibleText.isVisible`, every one: two types that look the same are
    /// the same type) without `/` or `*`.
    package static func validate(_ text: String, project: String, field: String) throws(APIError) {
        guard let slash = text.firstIndex(of: "/") else {
            throw APIError.invalid(field, "'\(text)' must be NAMESPACE/TYPE, as in \(project)/slide")
        }
        let namespace = text[..<slash], type = text[text.index(after: slash)...]
        guard namespace == project else {
            throw APIError(.forbidden, "\(field): namespace '\(namespace)' is not this project's (it owns '\(project)')", field: field)
        }
        guard (1...64).contains(type.utf8.count), !type.contains("/"), !type.contains("*"),
              type.unicodeScalars.allSatisfy(VisibleText.isVisible)
        else {
            throw APIError.invalid(field, "type must be 1-64 bytes (UTF-8) of visible characters without '/' or '*' "
                + "(got \(type.utf8.count) bytes)")
        }
    }
}

/// Which attachments a call wants: `*` (all of the project's), `NAMESPACE/*`, or
/// `NAMESPACE/TYPE`; none at all when `getforobserved` names no types, as Google's did.
package struct NamespacedTypeFilter: Sendable {
    private var patterns: [String]

    package static let all = NamespacedTypeFilter(patterns: ["*"])

    package init(patterns: [String]) { self.patterns = patterns }

    /// Checks each pattern's shape; a pattern naming another project's namespace matches nothing.
    package init(parsing patterns: [String], field: String) throws(APIError) {
        for (index, pattern) in patterns.enumerated() where pattern != "*" {
            let parts = pattern.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
                throw APIError.invalid("\(field)[\(index)]", "'\(pattern)' must be *, NAMESPACE/* or NAMESPACE/TYPE")
            }
        }
        self.patterns = patterns
    }

    package func matches(_ namespacedType: String) -> Bool {
        patterns.contains { pattern in
            if pattern == "*" || pattern == "*/*" { return true }
            if pattern.hasSuffix("/*") { return namespacedType.hasPrefix(pattern.dropLast()) }
            return pattern == namespacedType
        }
    }
}
