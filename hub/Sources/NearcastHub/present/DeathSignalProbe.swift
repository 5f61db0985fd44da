import NIOConcurrencyHelpers

/// Whether `setpriv --pdeathsig KILL` works on this machine, asked once (a child that runs
/// `true` under it) and remembered. It does not under the package's hardened unit: setpriv always
/// applies its capability sets first, and `SystemCallFilter=~@privileged` refuses `capset` (the
/// test-package-hub run that found it: "setpriv: activate capabilities: Operation not
/// permitted"). There the renderer runs without it, and the service's control group is what
/// ends a renderer with the hub (systemd kills what is left in it when the main process dies).
final class DeathSignalProbe: Sendable {
    private let answer = NIOLockedValueBox<Bool?>(nil)

    /// The remembered answer, asking `setpriv` the first time.
    func works(setpriv: String) async -> Bool {
        if let known = answer.withLockedValue({ $0 }) { return known }
        let outcome = try? await ChildProcess.run(setpriv, ["--pdeathsig", "KILL", "--", "true"], standardOutput: "/dev/null",
                                                  standardError: "/dev/null", deadline: .now + .seconds(10))
        var works = false
        if let outcome, outcome.stoppedBy == nil, case .exited(0) = outcome.end { works = true }
        // A probe that could not start (out of descriptors) is asked again next time.
        if outcome != nil { answer.withLockedValue { $0 = works } }
        return works
    }
}
