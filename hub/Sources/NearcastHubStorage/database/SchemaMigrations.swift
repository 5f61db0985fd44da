import NearcastHub
import SQLKit

/// The hub's one schema, for SQLite and PostgreSQL alike, reached by numbered migrations.
///
/// `hub_migrations` records what has been applied. Each migration runs in a transaction; on
/// PostgreSQL an advisory lock makes hub instances starting together take turns, so exactly one
/// applies each step. A database migrated by a newer hub is refused rather than guessed at.
///
/// Every value is TEXT or BIGINT: keys, ids and data are hex or base64 text, times are
/// milliseconds since 1970. The same statements then mean the same thing in both dialects.
enum SchemaMigrations {
    struct Migration {
        let version: Int
        let summary: String
        let statements: [String]
    }

    static let all: [Migration] = [
        Migration(version: 1, summary: "projects, beacons, attachments, settings, change counter", statements: [
            """
            CREATE TABLE hub_settings (
                name TEXT PRIMARY KEY,
                value TEXT NOT NULL)
            """,
            // One row, 'changes': bumped by every write a resolver cache or a watch must see,
            // inside the writing transaction, so its order is the commit order.
            """
            CREATE TABLE hub_counters (
                name TEXT PRIMARY KEY,
                value BIGINT NOT NULL)
            """,
            "INSERT INTO hub_counters (name, value) VALUES ('changes', 0)",
            """
            CREATE TABLE projects (
                name TEXT PRIMARY KEY,
                api_key_hash TEXT NOT NULL UNIQUE,
                secret_key_hash TEXT NOT NULL UNIQUE,
                created_ms BIGINT NOT NULL)
            """,
            """
            CREATE TABLE beacons (
                project TEXT NOT NULL REFERENCES projects (name),
                beacon_name TEXT NOT NULL,
                advertised_type TEXT NOT NULL,
                advertised_id TEXT NOT NULL,
                identity_key TEXT,
                beacon_public_key TEXT,
                exponent BIGINT,
                clock_value BIGINT,
                clock_at_ms BIGINT,
                description TEXT,
                status TEXT NOT NULL,
                created_ms BIGINT NOT NULL,
                heartbeat_ms BIGINT,
                heartbeat TEXT,
                change_seq BIGINT NOT NULL,
                PRIMARY KEY (project, beacon_name))
            """,
            "CREATE INDEX beacons_by_change ON beacons (change_seq)",
            "CREATE INDEX beacons_by_advertised_id ON beacons (project, advertised_type, advertised_id)",
            """
            CREATE TABLE attachments (
                project TEXT NOT NULL,
                beacon_name TEXT NOT NULL,
                attachment_id TEXT NOT NULL,
                namespaced_type TEXT NOT NULL,
                data TEXT NOT NULL,
                created_ms BIGINT NOT NULL,
                change_seq BIGINT NOT NULL,
                PRIMARY KEY (project, beacon_name, attachment_id),
                FOREIGN KEY (project, beacon_name) REFERENCES beacons (project, beacon_name))
            """,
        ]),
        Migration(version: 2, summary: "Present: decks and their page images, shows, reactions' choices, followers", statements: [
            // A deck's pages are rendered once, at upload; images are base64 JPEG text, like
            // every other value here, so both dialects store and return them alike.
            """
            CREATE TABLE decks (
                project TEXT NOT NULL REFERENCES projects (name),
                deck_id TEXT NOT NULL,
                title TEXT NOT NULL,
                pages BIGINT NOT NULL,
                bytes BIGINT NOT NULL,
                width BIGINT NOT NULL,
                height BIGINT NOT NULL,
                created_ms BIGINT NOT NULL,
                PRIMARY KEY (project, deck_id))
            """,
            """
            CREATE TABLE deck_pages (
                project TEXT NOT NULL,
                deck_id TEXT NOT NULL,
                page BIGINT NOT NULL,
                full_image TEXT NOT NULL,
                thumb_image TEXT NOT NULL,
                PRIMARY KEY (project, deck_id, page),
                FOREIGN KEY (project, deck_id) REFERENCES decks (project, deck_id) ON DELETE CASCADE)
            """,
            // One show per beacon: the deck on it, the live page, the furthest page shown (what
            // the public key may see), and the reactions counted so far (JSON {"value": count}).
            """
            CREATE TABLE shows (
                project TEXT NOT NULL,
                beacon_name TEXT NOT NULL,
                deck_id TEXT NOT NULL,
                page BIGINT NOT NULL,
                shown_up_to BIGINT NOT NULL,
                started_ms BIGINT NOT NULL,
                updated_ms BIGINT NOT NULL,
                counts TEXT NOT NULL,
                PRIMARY KEY (project, beacon_name),
                FOREIGN KEY (project, deck_id) REFERENCES decks (project, deck_id) ON DELETE CASCADE)
            """,
            """
            CREATE TABLE reaction_choices (
                project TEXT PRIMARY KEY REFERENCES projects (name),
                enabled BIGINT NOT NULL,
                emoji TEXT NOT NULL,
                images TEXT NOT NULL)
            """,
            // Each instance's count of phones following each show, refreshed every few seconds;
            // a show's followers are the sum over instances heard from recently.
            """
            CREATE TABLE show_followers (
                instance TEXT NOT NULL,
                project TEXT NOT NULL,
                beacon_name TEXT NOT NULL,
                followers BIGINT NOT NULL,
                updated_ms BIGINT NOT NULL,
                PRIMARY KEY (instance, project, beacon_name))
            """,
        ]),
        Migration(version: 3, summary: "field checks: what the audience's phones heard of a box's test sounds", statements: [
            // Anonymous results sent from the check page: no address, key or user agent, only
            // the phone's kind. The tones and bands are JSON text (lists the hub only stores
            // and returns); beacon_name is NULL when the phone resolved no box. No foreign key
            // to beacons: a result outlives the box being deleted or re-registered.
            """
            CREATE TABLE field_checks (
                project TEXT NOT NULL REFERENCES projects (name),
                check_id TEXT NOT NULL,
                beacon_name TEXT,
                platform TEXT NOT NULL,
                browser TEXT NOT NULL,
                sample_rate BIGINT NOT NULL,
                tones TEXT NOT NULL,
                bands TEXT NOT NULL,
                verdict TEXT NOT NULL,
                created_ms BIGINT NOT NULL,
                PRIMARY KEY (project, check_id))
            """,
            // Newest first for the list, and the project's oldest found quickly when its cap of
            // kept results is passed; check_id orders results of the same millisecond.
            "CREATE INDEX field_checks_by_time ON field_checks (project, created_ms, check_id)",
        ]),
        Migration(version: 4, summary: "Present: the pages a show has shown, each for a moment, not everything up to the furthest", statements: [
            // Ranges of pages ("1-3,5"): a page jumped past is not shown (ShownPages). A running
            // show keeps what it had: everything up to its furthest page.
            "ALTER TABLE shows ADD COLUMN shown TEXT NOT NULL DEFAULT ''",
            "UPDATE shows SET shown = '1-' || CAST(shown_up_to AS TEXT)",
        ]),
        Migration(version: 5, summary: "Present: the code rotates every minute under a salt of the show's; joining by code can be off and capped", statements: [
            // The salt is new when the presenter rotates the code; a running show gets one the
            // first time it is rotated (the empty salt is as secret: the HMAC key is).
            "ALTER TABLE shows ADD COLUMN code_salt TEXT NOT NULL DEFAULT ''",
            "ALTER TABLE shows ADD COLUMN code_joining BIGINT NOT NULL DEFAULT 1",
            // The share (%) of a show's followers that may hold passes from the code.
            "ALTER TABLE shows ADD COLUMN code_share BIGINT NOT NULL DEFAULT 50",
        ]),
        Migration(version: 6, summary: "a venue's day: each project's schedule in force, the speakers' decks, and the rooms given a box by hand", statements: [
            // One document per project (ScheduleDocument, JSON text), written whole by an import:
            // a schedule is replaced in one step, never half there.
            """
            CREATE TABLE schedules (
                project TEXT PRIMARY KEY REFERENCES projects (name),
                document TEXT NOT NULL,
                imported_ms BIGINT NOT NULL)
            """,
            // The deck each talk's speaker uploaded (its upload address is a capability, not stored).
            """
            CREATE TABLE talk_decks (
                project TEXT NOT NULL REFERENCES projects (name),
                guid TEXT NOT NULL,
                deck_id TEXT NOT NULL,
                uploaded_ms BIGINT NOT NULL,
                PRIMARY KEY (project, guid))
            """,
            """
            CREATE TABLE room_boxes (
                project TEXT NOT NULL REFERENCES projects (name),
                room TEXT NOT NULL,
                beacon_name TEXT NOT NULL,
                PRIMARY KEY (project, room))
            """,
        ]),
        Migration(version: 7, summary: "Present: reactions counted by slide and minute, for the speakers' figures", statements: [
            // A row per show (its beacon), deck, page on the screen, minute (its first millisecond)
            // and value, its count added to by each batch (ReactionTally): no phone id, no single
            // reaction. Which talk a row belongs to is read from the schedule when the figures are
            // (TalkFigures). No foreign keys: the figures outlive the show, the deck and the box.
            // The key's order serves "this box in this talk's minutes"; the index, "this deck
            // from this minute on".
            """
            CREATE TABLE reaction_tallies (
                project TEXT NOT NULL REFERENCES projects (name),
                beacon_name TEXT NOT NULL,
                minute_ms BIGINT NOT NULL,
                deck_id TEXT NOT NULL,
                page BIGINT NOT NULL,
                value TEXT NOT NULL,
                count BIGINT NOT NULL,
                PRIMARY KEY (project, beacon_name, minute_ms, deck_id, page, value))
            """,
            "CREATE INDEX reaction_tallies_by_deck ON reaction_tallies (project, deck_id, minute_ms)",
        ]),
        Migration(version: 8, summary: "the rooms' reach: what the listener pages heard, counted per box, day, kind of phone and way in", statements: [
            // Counts only (ReachCounts): a row is the phones of one box ('' for none), one UTC day
            // (days since 1970), one kind of phone and one way in; each visit adds itself once and
            // takes its earlier report back (its receipt), so no row holds a phone, an id or an
            // address. first_token_N is a histogram of the first token's time (its buckets'
            // edges are ReachCounts.firstTokenEdgesMs); the level sums are tenths of a dB.
            // No foreign key to beacons: the counts outlive the box. Old days are deleted
            // (limits.reachDaysKept) through the index on day.
            """
            CREATE TABLE reach_counts (
                project TEXT NOT NULL REFERENCES projects (name),
                day BIGINT NOT NULL,
                beacon_name TEXT NOT NULL,
                browser TEXT NOT NULL,
                platform TEXT NOT NULL,
                joined_by TEXT NOT NULL,
                phones BIGINT NOT NULL DEFAULT 0,
                heard BIGINT NOT NULL DEFAULT 0,
                first_token_0 BIGINT NOT NULL DEFAULT 0,
                first_token_1 BIGINT NOT NULL DEFAULT 0,
                first_token_2 BIGINT NOT NULL DEFAULT 0,
                first_token_3 BIGINT NOT NULL DEFAULT 0,
                first_token_4 BIGINT NOT NULL DEFAULT 0,
                first_token_5 BIGINT NOT NULL DEFAULT 0,
                first_token_6 BIGINT NOT NULL DEFAULT 0,
                first_token_7 BIGINT NOT NULL DEFAULT 0,
                first_token_8 BIGINT NOT NULL DEFAULT 0,
                first_token_9 BIGINT NOT NULL DEFAULT 0,
                first_token_10 BIGINT NOT NULL DEFAULT 0,
                first_token_11 BIGINT NOT NULL DEFAULT 0,
                rate_44100 BIGINT NOT NULL DEFAULT 0,
                rate_48000 BIGINT NOT NULL DEFAULT 0,
                rate_other BIGINT NOT NULL DEFAULT 0,
                echo_cancellation_on BIGINT NOT NULL DEFAULT 0,
                noise_suppression_on BIGINT NOT NULL DEFAULT 0,
                auto_gain_control_on BIGINT NOT NULL DEFAULT 0,
                high_phones BIGINT NOT NULL DEFAULT 0,
                high_level_decidb BIGINT NOT NULL DEFAULT 0,
                low_phones BIGINT NOT NULL DEFAULT 0,
                low_level_decidb BIGINT NOT NULL DEFAULT 0,
                bursts_detected BIGINT NOT NULL DEFAULT 0,
                bursts_decoded BIGINT NOT NULL DEFAULT 0,
                PRIMARY KEY (project, day, beacon_name, browser, platform, joined_by))
            """,
            "CREATE INDEX reach_counts_by_day ON reach_counts (day)",
        ]),
        Migration(version: 9, summary: "the venue's counts every instance shares: instances alive, phones heard, code passes, boxes heard", statements: [
            // UNLOGGED on PostgreSQL (plain tables on SQLite): minutes' worth of counts, written
            // often; a crash of the server empties them and the rules count again from none.
            // Each instance's heartbeat (VenueService): alive while seen_ms is recent.
            """
            CREATE UNLOGGED TABLE hub_instances (
                instance TEXT PRIMARY KEY,
                started_ms BIGINT NOT NULL,
                seen_ms BIGINT NOT NULL)
            """,
            // The phones that earned an id by hearing each show (identity: project and the
            // challenge's unique part, PhoneIDs.Phone.identity): the code's cap is a share of them.
            """
            CREATE UNLOGGED TABLE show_phones (
                project TEXT NOT NULL,
                beacon_name TEXT NOT NULL,
                started_ms BIGINT NOT NULL,
                identity TEXT NOT NULL,
                recorded_ms BIGINT NOT NULL,
                PRIMARY KEY (project, beacon_name, started_ms, identity))
            """,
            // A row per pass given for a show's code, kept for a pass's lifetime.
            """
            CREATE UNLOGGED TABLE code_passes (
                project TEXT NOT NULL,
                beacon_name TEXT NOT NULL,
                given_ms BIGINT NOT NULL)
            """,
            "CREATE INDEX code_passes_by_show ON code_passes (project, beacon_name, given_ms)",
            // When a phone last heard each box, on any instance (the presenter's hint).
            """
            CREATE UNLOGGED TABLE heard_boxes (
                project TEXT NOT NULL,
                beacon_name TEXT NOT NULL,
                heard_ms BIGINT NOT NULL,
                PRIMARY KEY (project, beacon_name))
            """,
        ]),
        Migration(version: 10, summary: "Present: a receipt for each tap sent with a key, so a tap sent again is counted once", statements: [
            // Written in the batch's transaction with the counts, and logged like them: a tap
            // counted before a crash of the server is still known after it. Kept ten minutes
            // (ReactionBatch.receiptMilliseconds), cleared with the heartbeat.
            """
            CREATE TABLE reaction_receipts (
                phone TEXT NOT NULL,
                tap TEXT NOT NULL,
                received_ms BIGINT NOT NULL,
                PRIMARY KEY (phone, tap))
            """,
            "CREATE INDEX reaction_receipts_by_time ON reaction_receipts (received_ms)",
        ]),
    ]

    static var latestVersion: Int { all.last?.version ?? 0 }
}
