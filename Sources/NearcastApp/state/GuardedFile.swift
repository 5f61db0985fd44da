import NearcastCore
import NearcastDrivers

/// The one way Nearcast keeps a file it must not lose to a power cut or a bad write: the state
/// files (consent, beacon clock, identity key, wrong PINs), the settings a technician saved on
/// the console, and the config file's last good copy all go through it.
///
/// - Saving is atomic (`FileSystem.writeAtomically`: temp file, fsync, rename, fsync the
///   directory), mode 0600. The good version it replaces becomes `NAME.previous`; a bad one is
///   first kept aside as `NAME.damaged` (then `.damaged.2` ..., never overwritten).
/// - Loading checks the file with the store's own test. A bad file whose previous copy is good
///   (and allowed to stand in) is kept aside and the previous copy restored in its place in one
///   atomic step, so there is never a moment without the file. A file that cannot be read at
///   all (EIO, EACCES) is reported and left alone, since its contents may be fine.
struct GuardedFile {
    let path: String
    /// Largest size read; a larger file is bad.
    let limit: Int
    /// What is wrong with a version's text (nil: it is a good version).
    let problem: (String) -> String?

    var previousPath: String { path + ".previous" }

    /// One version of the file, as read.
    enum Version {
        case absent
        case good(String)
        /// Not a good version: why.
        case bad(String)
        /// Could not be read: why (its contents may be fine).
        case unreadable(String)
    }

    func version(at file: String) -> Version {
        guard FileSystem.exists(file) else { return .absent }
        let text: String
        do { text = try FileSystem.readText(file, limit: limit) } catch {
            return error.isFileTooLarge ? .bad("too large (over \(limit) bytes)") : .unreadable("cannot read: \(error.message)")
        }
        if let problem = problem(text) { return .bad(problem) }
        return .good(text)
    }

    /// What a load found.
    enum Loaded {
        case absent
        case good(String)
        /// The file was bad and its previous copy stood in: restored in its place when `keptAs`
        /// names where the bad one went, else (`repair` off, or the repair failed: `failure`)
        /// only used.
        case restored(String, problem: String, keptAs: String?, failure: SystemError?)
        /// Bad, and no previous copy may stand in.
        case bad(String)
        case unreadable(String)
    }

    /// Loads the file. `previousMayStandIn` decides whether a good previous copy may replace a
    /// bad file (not always: a previous "granted" may be older than the "denied" that was lost);
    /// with `repair` off nothing is written (a read for show).
    func load(previousMayStandIn: (String) -> Bool = { _ in true }, repair: Bool = true) -> Loaded {
        let problem: String
        switch version(at: path) {
        case .absent: return .absent
        case .good(let text): return .good(text)
        case .unreadable(let why): return .unreadable(why)
        case .bad(let why): problem = why
        }
        guard case .good(let text) = version(at: previousPath), previousMayStandIn(text) else { return .bad(problem) }
        guard repair else { return .restored(text, problem: problem, keptAs: nil, failure: nil) }
        do {
            let aside = try keepAside()
            try FileSystem.writeAtomically(path, Array(text.utf8), mode: 0o600)
            return .restored(text, problem: problem, keptAs: aside, failure: nil)
        } catch {
            return .restored(text, problem: problem, keptAs: nil, failure: error)
        }
    }

    /// Replaces the file with `text`. The good version replaced becomes `.previous` (with
    /// `backup`, `.previous` gets `text` too: a value written once keeps a copy of itself);
    /// a bad one is kept aside first. With `keepPrevious` off no `.previous` is made.
    func save(_ text: String, keepPrevious: Bool = true, backup: Bool = false) throws(SystemError) {
        let bytes = Array(text.utf8)
        if backup {
            try FileSystem.writeAtomically(previousPath, bytes, mode: 0o600)
        } else {
            switch version(at: path) {
            case .good(let old) where keepPrevious:
                try FileSystem.writeAtomically(previousPath, Array(old.utf8), mode: 0o600)
            case .bad:
                _ = try keepAside()
            case .good, .absent, .unreadable:
                break
            }
        }
        try FileSystem.writeAtomically(path, bytes, mode: 0o600)
    }

    /// Removes the file and its previous copy.
    func remove() throws(SystemError) {
        for file in [previousPath, path] where FileSystem.exists(file) { try FileSystem.remove(file) }
    }

    /// Copies the file's exact bytes to a `.damaged` name not yet taken (`NAME.damaged`, then
    /// `NAME.damaged.2` ...), so no earlier damaged copy is overwritten. Returns the path used.
    func keepAside() throws(SystemError) -> String {
        var aside = path + ".damaged", number = 1
        while FileSystem.exists(aside) && number < 100 {
            number += 1
            aside = path + ".damaged.\(number)"
        }
        try FileSystem.writeAtomically(aside, try FileSystem.readBytes(path, limit: max(limit, 64 * 1024)), mode: 0o600)
        return aside
    }
}
