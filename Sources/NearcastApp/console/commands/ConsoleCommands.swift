/// The console's commands, each subsystem's made with the parts of the box it acts on: the one
/// place that hands them out. A new command is a descriptor in its subsystem's file; a new
/// subsystem is a file and a line here.
enum ConsoleCommands {
    static func all(for box: Box) -> [ConsoleCommandDescriptor] {
        StatusCommands.commands(box)
            + BroadcastCommands.commands(box.publications, consent: box.consent, progress: box.progress,
                                         stateDirectory: box.stateDirectory, log: box.log)
            + DeviceCommands.commands(box.encoder, box.advertising, requests: box.requests, faults: box.faults,
                                      board: box.board, log: box.log)
            + MaintenanceCommands.commands(box.manager, requests: box.requests, settings: box.settings, log: box.log)
            + AccessCommands.commands(box.pin, progress: box.progress, log: box.log)
    }
}
