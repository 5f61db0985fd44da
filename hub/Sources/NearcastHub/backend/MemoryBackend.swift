import ServiceLifecycle

/// Memory: the repositories in `MemoryHubData`, a new service key, nothing to close. For router
/// tests and the fuzzer; a hub that serves keeps its data in a database.
package struct MemoryBackend: HubBackend {
    package init() {}

    package var kindName: String { "memory" }
    package var locationText: String { "memory" }
    package func ping() async throws {}
    package func isUnavailable(_ error: any Error) -> Bool { false }
    package func describe(_ error: any Error) -> String { String(describing: error) }

    package func makeRepositories(_ parts: RepositoryParts) -> HubRepositories {
        let memory = MemoryHubData(clock: parts.clock, feed: parts.feed)
        let beacons = MemoryBeaconRepository(data: memory)
        return HubRepositories(
            projects: MemoryProjectRepository(data: memory), beacons: beacons, beaconChanges: beacons,
            attachments: MemoryAttachmentRepository(data: memory),
            fieldChecks: MemoryFieldCheckRepository(data: memory, keptPerProject: parts.limits.fieldChecks.keptPerProject),
            decks: MemoryDeckRepository(data: memory, showFeed: parts.showFeed, quotaBytes: parts.decks.storagePerProjectBytes),
            shows: MemoryShowRepository(data: memory, showFeed: parts.showFeed),
            choices: MemoryReactionChoicesRepository(data: memory), tallies: MemoryReactionTallyRepository(data: memory),
            schedules: MemoryScheduleRepository(), reach: MemoryReachRepository(data: memory),
            venue: MemoryVenueRepository())
    }

    package func loadServiceKey() async throws -> ServiceKey { ServiceKey(privateKey: .init()) }
    package func services(_ receivers: ChangeReceivers) -> [any Service] { [] }
    package func close() async {}
}
