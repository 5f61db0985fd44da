import NearcastDrivers

/// What build this is. `tools/package/release` stamps the version; a development build says `0.1.0-dev`.
public enum BuildInfo {
    /// The version: `tools/package/release` stamps it from git (`0.1.0~gitCOUNT.gCOMMIT`); a
    /// development build says `0.1.0-dev`.
    public static var version: String { BuildIdentity.version }
    /// The binary's GNU build ID (as `readelf -n` prints it), which tells two builds of the same
    /// version apart.
    public static var buildID: String { BuildIdentity.current ?? "none" }
    /// One line for `--version` and the console's `version`.
    public static var versionLine: String { "nearcast \(version) (build \(buildID))" }
}
