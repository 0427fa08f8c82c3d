import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The history in one SQLite file (`Reports/history.sqlite` by default): what a single machine or
/// a CI job that keeps the file as a cache needs, with no server.
///
/// The file says what it is: `PRAGMA application_id` holds perfkit's tag and `user_version` the
/// format, so another program's database is refused before anything is written into it.
public final class SQLiteResultsStore: ResultsStore {
    /// "pfkh" in ASCII.
    static let applicationID: Int64 = 0x7066_6B68
    /// 1: the first format; 2: `results.build_id` (the executable's build ID). A format-1 file
    /// is upgraded when opened (its results then have no build ID).
    static let formatVersion: Int64 = 2

    public let location: String
    private let connection: SQLiteConnection

    /// Opens the store at `path`, creating it (and its folder) when `create` is true and it does
    /// not exist yet.
    public init(path: String, create: Bool) throws {
        location = path
        let exists = FileManager.default.fileExists(atPath: path)
        if !exists && !create {
            throw StoreError(
                .notFound, location: path, problem: "no history store here (perfkit history add creates one)")
        }
        if !exists {
            let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
            do {
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            } catch {
                throw StoreError(.cannotOpen, location: path, problem: "cannot create its folder", cause: error)
            }
        }
        do {
            connection = try SQLiteConnection(path: path)
        } catch let error as SQLiteError {
            throw Self.storeError(error, at: path)
        }
        try checkOrCreateSchema()
    }

    private func checkOrCreateSchema() throws {
        do {
            // One read transaction, so the three come from one state of the file: read one by one, they
            // may straddle another process's creating the store (no tag yet, then its tables) and
            // look like another program's database.
            try connection.query("BEGIN")
            let application: Int64
            let version: Int64
            let tables: Int64
            do {
                application = try connection.query("PRAGMA application_id").first?.first?.integer ?? 0
                version = try connection.query("PRAGMA user_version").first?.first?.integer ?? 0
                tables = try connection.query("SELECT count(*) FROM sqlite_master").first?.first?.integer ?? 0
                try connection.query("COMMIT")
            } catch {
                _ = try? connection.query("ROLLBACK")
                throw error
            }
            if application == 0 && version == 0 && tables == 0 {
                try createSchema()
                return
            }
            guard application == Self.applicationID else {
                throw StoreError(
                    .notAHistory, location: location,
                    problem: "not a perfkit history (an SQLite database of another program)")
            }
            guard version <= Self.formatVersion else {
                throw StoreError(
                    .newerFormat(Int(version)), location: location,
                    problem:
                        "written by a newer perfkit (history format \(version); this one reads \(Self.formatVersion))")
            }
            if version < Self.formatVersion { try upgrade() }
        } catch let error as SQLiteError {
            throw Self.storeError(error, at: location)
        }
    }

    /// One transaction: two processes creating the same new file at once both see it empty, and
    /// the second waits for the first, then finds the tables (`IF NOT EXISTS`).
    private func createSchema() throws {
        try connection.query("BEGIN IMMEDIATE")
        do {
            for statement in Self.schema { try connection.query(statement) }
            try connection.query("PRAGMA application_id = \(Self.applicationID)")
            try connection.query("PRAGMA user_version = \(Self.formatVersion)")
            try connection.query("COMMIT")
        } catch {
            _ = try? connection.query("ROLLBACK")
            throw error
        }
    }

    /// Brings a file of an older format to this one, in one transaction; another process may have
    /// done it meanwhile, so the format is read again inside it.
    private func upgrade() throws {
        try connection.query("BEGIN IMMEDIATE")
        do {
            let version = try connection.query("PRAGMA user_version").first?.first?.integer ?? 0
            if version < 2 { try connection.query("ALTER TABLE results ADD COLUMN build_id TEXT") }
            try connection.query("PRAGMA user_version = \(Self.formatVersion)")
            try connection.query("COMMIT")
        } catch {
            _ = try? connection.query("ROLLBACK")
            throw error
        }
    }

    static let schema = [
        """
        CREATE TABLE IF NOT EXISTS machines (
            id INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE, name TEXT, host TEXT NOT NULL,
            cpu_model TEXT NOT NULL, core_count INTEGER NOT NULL, kernel TEXT NOT NULL,
            swift_version TEXT NOT NULL, build_configuration TEXT NOT NULL)
        """,
        """
        CREATE TABLE IF NOT EXISTS runs (
            id INTEGER PRIMARY KEY, digest TEXT NOT NULL UNIQUE, machine_id INTEGER NOT NULL REFERENCES machines(id),
            git_commit TEXT, dirty INTEGER NOT NULL, commit_position INTEGER, branch TEXT,
            created_at REAL NOT NULL, added_at REAL NOT NULL, profile TEXT, complete INTEGER NOT NULL)
        """,
        """
        CREATE TABLE IF NOT EXISTS results (
            run_id INTEGER NOT NULL REFERENCES runs(id), benchmark TEXT NOT NULL, metric TEXT NOT NULL,
            value REAL NOT NULL, lower REAL, upper REAL, sample_count INTEGER NOT NULL,
            threshold_percent REAL, claim_verdict TEXT, build_id TEXT,
            PRIMARY KEY (run_id, benchmark, metric)) WITHOUT ROWID
        """,
    ]

    /// Set by the store tests to SIGKILL the process just before COMMIT: a real death half-way
    /// through an `add`, which must leave the file as it was.
    static let killBeforeCommitVariable = "PERFKIT_HISTORY_TEST_KILL_BEFORE_COMMIT"

    public func add(_ runs: [HistoryRun]) throws -> [StoreAddOutcome] {
        do {
            try connection.query("BEGIN IMMEDIATE")
            do {
                let outcomes = try insert(runs)
                if getenv(Self.killBeforeCommitVariable) != nil { raise(SIGKILL) }
                try connection.query("COMMIT")
                return outcomes
            } catch {
                _ = try? connection.query("ROLLBACK")
                throw error
            }
        } catch let error as SQLiteError {
            throw Self.storeError(error, at: location)
        }
    }

    private func insert(_ runs: [HistoryRun]) throws -> [StoreAddOutcome] {
        let findRun = try connection.prepare("SELECT added_at FROM runs WHERE digest = ?1")
        let addMachine = try connection.prepare(
            """
            INSERT OR IGNORE INTO machines (key, name, host, cpu_model, core_count, kernel, swift_version,
                build_configuration)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
            """)
        let findMachine = try connection.prepare("SELECT id FROM machines WHERE key = ?1")
        let addRun = try connection.prepare(
            """
            INSERT INTO runs (digest, machine_id, git_commit, dirty, commit_position, branch, created_at, added_at,
                profile, complete)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)
            """)
        // last_insert_rowid() rather than RETURNING, which needs SQLite 3.35 (Ubuntu 20.04 has 3.31).
        let lastRow = try connection.prepare("SELECT last_insert_rowid()")
        let addResult = try connection.prepare(
            """
            INSERT INTO results (run_id, benchmark, metric, value, lower, upper, sample_count, threshold_percent,
                claim_verdict, build_id)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)
            """)
        let now = Date().timeIntervalSince1970
        var outcomes: [StoreAddOutcome] = []
        for run in runs {
            if let stored = try findRun.rows([.text(run.digest)]).first?.first?.real {
                outcomes.append(
                    StoreAddOutcome(digest: run.digest, alreadyAddedAt: Date(timeIntervalSince1970: stored)))
                continue
            }
            let machine = run.machine
            try addMachine.rows([
                .text(machine.key), .optional(machine.name), .text(machine.host), .text(machine.cpuModel),
                .integer(Int64(machine.coreCount)), .text(machine.kernel), .text(machine.swiftVersion),
                .text(machine.buildConfiguration),
            ])
            guard let machineID = try findMachine.rows([.text(machine.key)]).first?.first?.integer else {
                throw SQLiteError(.failed, "insert: the machine's row is missing")
            }
            try addRun.rows([
                .text(run.digest), .integer(machineID), .optional(run.commit), .integer(run.dirty ? 1 : 0),
                .optional(run.commitPosition.map(Int64.init)), .optional(run.branch),
                .real(run.createdAt.timeIntervalSince1970), .real(now), .optional(run.profile),
                .integer(run.complete ? 1 : 0),
            ])
            guard let runID = try lastRow.rows().first?.first?.integer else {
                throw SQLiteError(.failed, "insert: no row id")
            }
            for result in run.results {
                try addResult.rows([
                    .integer(runID), .text(result.benchmark), .text(result.metric.rawValue), .real(result.value),
                    .optional(result.lower), .optional(result.upper), .integer(Int64(result.sampleCount)),
                    .optional(result.thresholdPercent), .optional(result.claimVerdict),
                    .optional(result.executableBuildID),
                ])
            }
            outcomes.append(StoreAddOutcome(digest: run.digest, alreadyAddedAt: nil))
        }
        return outcomes
    }

    public func runs() throws -> [HistoryRun] {
        do {
            let machines = try connection.query(
                """
                SELECT id, name, host, cpu_model, core_count, kernel, swift_version, build_configuration FROM machines
                """
            ).reduce(into: [Int64: MachineFingerprint]()) { machines, row in
                machines[row[0].integer ?? -1] = MachineFingerprint(
                    name: row[1].text, host: row[2].text ?? "", cpuModel: row[3].text ?? "",
                    coreCount: Int(row[4].integer ?? 0), kernel: row[5].text ?? "", swiftVersion: row[6].text ?? "",
                    buildConfiguration: row[7].text ?? "")
            }
            var results: [Int64: [HistoryResult]] = [:]
            for row in try connection.query(
                """
                SELECT run_id, benchmark, metric, value, lower, upper, sample_count, threshold_percent, claim_verdict,
                    build_id
                FROM results ORDER BY run_id, benchmark, metric
                """)
            {
                guard let runID = row[0].integer, let metric = row[2].text.flatMap(HistoryMetric.init(rawValue:))
                else { continue }
                results[runID, default: []].append(
                    HistoryResult(
                        benchmark: row[1].text ?? "", metric: metric, value: row[3].real ?? .nan, lower: row[4].real,
                        upper: row[5].real, sampleCount: Int(row[6].integer ?? 0), thresholdPercent: row[7].real,
                        claimVerdict: row[8].text, executableBuildID: row[9].text))
            }
            return try connection.query(
                """
                SELECT id, digest, machine_id, git_commit, dirty, commit_position, branch, created_at, profile, complete
                FROM runs ORDER BY created_at, id
                """
            ).map { row in
                let id = row[0].integer ?? -1
                return HistoryRun(
                    digest: row[1].text ?? "", machine: machines[row[2].integer ?? -1] ?? Self.unknownMachine,
                    commit: row[3].text, dirty: row[4].integer == 1, commitPosition: row[5].integer.map(Int.init),
                    branch: row[6].text, createdAt: Date(timeIntervalSince1970: row[7].real ?? 0), profile: row[8].text,
                    complete: row[9].integer == 1, results: results[id] ?? [])
            }
        } catch let error as SQLiteError {
            throw Self.storeError(error, at: location)
        }
    }

    static let unknownMachine = MachineFingerprint(
        name: "unknown", host: "", cpuModel: "", coreCount: 0, kernel: "", swiftVersion: "", buildConfiguration: "")

    static func storeError(_ error: SQLiteError, at path: String) -> StoreError {
        switch error.kind {
        case .libraryMissing: StoreError(.unavailable, location: path, problem: error.message, cause: error)
        case .notADatabase:
            StoreError(.notAHistory, location: path, problem: "not an SQLite database (\(error.detail))", cause: error)
        case .busy:
            StoreError(
                .busy, location: path, problem: "another process kept the store locked (\(error.detail))",
                cause: error)
        case .cannotOpen: StoreError(.cannotOpen, location: path, problem: error.message, cause: error)
        case .failed: StoreError(.failed, location: path, problem: error.message, cause: error)
        }
    }
}

extension SQLiteValue {
    static func optional(_ value: String?) -> SQLiteValue { value.map(SQLiteValue.text) ?? .null }
    static func optional(_ value: Double?) -> SQLiteValue { value.map(SQLiteValue.real) ?? .null }
    static func optional(_ value: Int64?) -> SQLiteValue { value.map(SQLiteValue.integer) ?? .null }
}
