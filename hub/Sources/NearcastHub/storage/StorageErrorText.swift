/// An error from the storage as the hub's logs give it, for the parts that name no database:
/// PostgreSQL's own message (which PostgresNIO hides from `description`: `HubDatabase.describe`),
/// any other error as it describes itself.
func storageErrorText(_ error: any Error) -> String { HubDatabase.describe(error) }
