/// The table of settings as a user reads it, in Markdown: docs/settings.md holds it, and a test
/// fails when the two differ, so the page cannot fall behind the code.
extension BoxSettings {
    static var markdownTable: String {
        let header = "| setting | type | range | default | from | SIGHUP | `config save` | flag | console |\n"
            + "|---|---|---|---|---|---|---|---|---|\n"
        return header + all.map { setting in
            let reload = switch setting.onReload {
            case .applied: "applied"
            case .needsRestart: "needs a restart"
            case .notCompared: "not compared"
            case .notInConfigFile: "-"
            }
            let cells = [
                "`\(setting.key)`", setting.type + (setting.unit.isEmpty ? "" : " (\(setting.unit))"), setting.range,
                setting.defaultText, setting.sources.map(\.rawValue).joined(separator: ", "), reload,
                setting.keptByConfigSave ? "kept" : "-",
                setting.flags.map { "`\($0.synopsis)`" }.joined(separator: " "),
                setting.console.map { "`\($0)`" } ?? "-",
            ]
            return "| " + cells.map { $0.replacingPipes }.joined(separator: " | ") + " |\n"
        }.joined()
    }
}

private extension String {
    /// A cell's text with its `|` escaped, so a choice such as `audio|ble|both` stays one cell.
    var replacingPipes: String { split(separator: "|", omittingEmptySubsequences: false).joined(separator: "\\|") }
}
