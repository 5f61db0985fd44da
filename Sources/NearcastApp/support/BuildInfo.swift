/// What build this is. `tools/release` stamps the version; a development build says "dev".
public enum BuildInfo {
    /// The version, from `git describe` at release time.
    public static let version = "0.1.0-dev"
    /// One line for `--version`.
    public static var versionLine: String { "nearcast \(version)" }
}
