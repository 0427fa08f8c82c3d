import Foundation
import PostgresNIO

@_spi(Tooling) import PerfkitHistory

#if canImport(Glibc)
    import Glibc
#endif

/// The history in a PostgreSQL database: what a team whose CI runners all file their runs in one
/// store needs. The same tables and rules as `SQLiteResultsStore` (machines, runs, results; a run
/// whose digest is stored already is not added again; an add is one transaction), with writers on
/// many machines at once.
///
/// The database says what it is: a table `perfkit_history` holds the application's name and the
/// format, so another program's tables are refused before anything is written beside them. The
/// tables live in the connection's current schema (the first of its `search_path` that exists,
/// `public` unless the role or database sets another).
public final class PostgresResultsStore: ResultsStore {
    static let application = "perfkit-history"
    /// 1: the first format; 2: `results.build_id` (the executable's build ID). Tables of format 1
    /// are upgraded when opened (their results then have no build ID).
    static let formatVersion = 2
    /// The advisory lock two processes creating the tables at once take in turn ("pfkh" in ASCII).
    static let schemaLock: Int64 = 0x7066_6B68

    /// The URL as given, its password replaced by "***".
    public let location: String
    private let session: PostgresSession

    /// Connects to the database `url` names and checks that it holds a perfkit history or, when
    /// `create` is true, nothing yet (then creates the tables).
    public init(
        url: String, create: Bool, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws {
        location = StoreLocation.redacted(url)
        let parsed: PostgresStoreURL
        do {
            parsed = try PostgresStoreURL(url, environment: environment)
        } catch {
            throw StoreError(.cannotOpen, location: location, problem: error.description, cause: error)
        }
        do {
            session = try PostgresSession(parsed)
        } catch {
            throw Self.storeError(error, at: location, opening: (database: parsed.database, create: create))
        }
        do {
            try checkOrCreateSchema(create: create)
        } catch {
            throw Self.storeError(error, at: location)
        }
    }

    // MARK: - The tables

    /// What the current schema holds: how many tables or views, and whether `perfkit_history` is one.
    private func schemaState() throws -> (schema: String, relations: Int, marked: Bool) {
        let rows = try session.query(
            """
            SELECT n.nspname::text, count(c.oid),
                count(c.oid) FILTER (WHERE c.relname = 'perfkit_history' AND c.relkind = 'r')
            FROM pg_catalog.pg_namespace n
            LEFT JOIN pg_catalog.pg_class c ON c.relnamespace = n.oid AND c.relkind IN ('r', 'p', 'v', 'm', 'f')
            WHERE n.nspname = current_schema()
            GROUP BY n.nspname
            """)
        guard let row = rows.first else {
            throw StoreError(
                .cannotOpen, location: location,
                problem: "no schema to keep the tables in (none of the search_path's schemas exists)")
        }
        let (schema, relations, marked) = try row.decode((String, Int64, Int64).self)
        return (schema, Int(relations), marked > 0)
    }

    private func checkOrCreateSchema(create: Bool) throws {
        let state = try schemaState()
        if state.marked { return try checkFormat() }
        guard state.relations == 0 else { throw foreign(state.schema) }
        guard create else {
            throw StoreError(
                .notFound, location: location,
                problem: "no perfkit history in this database yet (perfkit-history history add creates one)")
        }
        try createSchema()
    }

    private func foreign(_ schema: String) -> StoreError {
        StoreError(
            .notAHistory, location: location,
            problem:
                "not a perfkit history (schema \(schema) holds another program's tables; give perfkit a database of its own)"
        )
    }

    private func checkFormat() throws {
        let marker: (String, Int)
        do {
            guard
                let row = try session.query(
                    "SELECT application, format FROM perfkit_history ORDER BY format DESC LIMIT 1"
                )
                .first
            else { throw StoreError(.notAHistory, location: location, problem: "not a perfkit history (no format)") }
            marker = try row.decode((String, Int).self)
        } catch let error as PSQLError where error.serverInfo?[.sqlState] == "42703" {
            // undefined_column: a table of that name, but not perfkit's.
            throw StoreError(
                .notAHistory, location: location, problem: "not a perfkit history (a foreign table perfkit_history)")
        }
        guard marker.0 == Self.application else {
            throw StoreError(
                .notAHistory, location: location, problem: "not a perfkit history (perfkit_history names \(marker.0))")
        }
        guard marker.1 <= Self.formatVersion else {
            throw StoreError(
                .newerFormat(marker.1), location: location,
                problem: "written by a newer perfkit (history format \(marker.1); this one reads \(Self.formatVersion))"
            )
        }
        if marker.1 < Self.formatVersion { try upgrade() }
    }

    /// Brings tables of an older format to this one, in one transaction under the schema lock:
    /// another process may have done it meanwhile, so the format is read again inside it.
    private func upgrade() throws {
        try session.query("BEGIN")
        do {
            try session.query("SELECT pg_advisory_xact_lock(\(Self.schemaLock))")
            let format =
                try session.query("SELECT max(format) FROM perfkit_history").first?.decode(Int?.self) ?? nil
            if (format ?? 0) < 2 { try session.query("ALTER TABLE results ADD COLUMN build_id text") }
            if (format ?? 0) < Self.formatVersion {
                try session.query(
                    "INSERT INTO perfkit_history (application, format) VALUES (\(Self.application), \(Self.formatVersion))"
                )
            }
            try session.query("COMMIT")
        } catch {
            _ = try? session.query("ROLLBACK")
            throw error
        }
    }

    /// One transaction under an advisory lock: two processes creating the tables of an empty
    /// database at once take turns, and the second finds the first's tables.
    private func createSchema() throws {
        try session.query("BEGIN")
        do {
            try session.query("SELECT pg_advisory_xact_lock(\(Self.schemaLock))")
            let state = try schemaState()
            if state.marked {
                try session.query("COMMIT")
                return try checkFormat()
            }
            guard state.relations == 0 else { throw foreign(state.schema) }
            for statement in Self.schema { try session.query(PostgresQuery(unsafeSQL: statement)) }
            try session.query(
                "INSERT INTO perfkit_history (application, format) VALUES (\(Self.application), \(Self.formatVersion))")
            try session.query("COMMIT")
        } catch {
            _ = try? session.query("ROLLBACK")
            throw error
        }
    }

    /// SQLite's schema in PostgreSQL's types. Times stay seconds since 1970 as doubles, as in the
    /// SQLite file: a run's `createdAt` comes back exactly (a timestamp keeps microseconds only).
    /// `value` refuses NaN, which SQLite's NOT NULL refuses (SQLite stores NaN as NULL);
    /// PostgreSQL would store it.
    static let schema = [
        """
        CREATE TABLE perfkit_history (application text NOT NULL, format integer NOT NULL)
        """,
        """
        COMMENT ON TABLE perfkit_history IS 'perfkit results history: the application and format of the tables beside it'
        """,
        """
        CREATE TABLE machines (
            id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, key text NOT NULL UNIQUE, name text,
            host text NOT NULL, cpu_model text NOT NULL, core_count integer NOT NULL, kernel text NOT NULL,
            swift_version text NOT NULL, build_configuration text NOT NULL)
        """,
        """
        CREATE TABLE runs (
            id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, digest text NOT NULL UNIQUE,
            machine_id bigint NOT NULL REFERENCES machines(id), git_commit text, dirty boolean NOT NULL,
            commit_position bigint, branch text, created_at double precision NOT NULL,
            added_at double precision NOT NULL, profile text, complete boolean NOT NULL)
        """,
        """
        CREATE TABLE results (
            run_id bigint NOT NULL REFERENCES runs(id), benchmark text NOT NULL, metric text NOT NULL,
            value double precision NOT NULL CHECK (value <> 'NaN'), lower double precision, upper double precision,
            sample_count integer NOT NULL, threshold_percent double precision, claim_verdict text, build_id text,
            PRIMARY KEY (run_id, benchmark, metric))
        """,
    ]

    // MARK: - Adding

    /// Set by the store tests to SIGKILL the process just before COMMIT (the variable
    /// `SQLiteResultsStore` reads too): a real death half-way through an `add`, after which the
    /// server must roll the transaction back.
    static let killBeforeCommitVariable = "PERFKIT_HISTORY_TEST_KILL_BEFORE_COMMIT"

    public func add(_ runs: [HistoryRun]) throws -> [StoreAddOutcome] {
        do {
            try session.query("BEGIN")
            do {
                let outcomes = try insert(runs)
                if getenv(Self.killBeforeCommitVariable) != nil { raise(SIGKILL) }
                try session.query("COMMIT")
                return outcomes
            } catch {
                _ = try? session.query("ROLLBACK")
                throw error
            }
        } catch {
            throw Self.storeError(error, at: location)
        }
    }

    /// Inserts what is not stored yet. Another writer may be adding the same runs at this moment:
    /// `ON CONFLICT DO NOTHING` makes an insert of a key another open transaction inserted wait for
    /// that transaction, then do nothing if it committed. Machines first, then runs, each in key
    /// order, so that two writers wait for each other's keys in one order, never in a cycle (which
    /// PostgreSQL would break by failing one of them).
    private func insert(_ runs: [HistoryRun]) throws -> [StoreAddOutcome] {
        let now = Date().timeIntervalSince1970
        var storedAt: [String: Double] = [:]
        let digests = Array(Set(runs.map(\.digest)))
        for row in try session.query("SELECT digest, added_at FROM runs WHERE digest = ANY(\(digests))") {
            let (digest, addedAt) = try row.decode((String, Double).self)
            storedAt[digest] = addedAt
        }
        var newRuns: [String: HistoryRun] = [:]
        for run in runs where storedAt[run.digest] == nil && newRuns[run.digest] == nil { newRuns[run.digest] = run }

        var machineIDs: [String: Int64] = [:]
        for machine in Dictionary(newRuns.values.map { ($0.machine.key, $0.machine) }, uniquingKeysWith: { a, _ in a })
            .sorted(by: { $0.key < $1.key })
        {
            machineIDs[machine.key] = try machineID(machine.value)
        }

        var added: Set<String> = []
        for (digest, run) in newRuns.sorted(by: { $0.key < $1.key }) {
            guard let machineID = machineIDs[run.machine.key] else { continue }
            let inserted = try session.query(
                """
                INSERT INTO runs (digest, machine_id, git_commit, dirty, commit_position, branch, created_at, added_at,
                    profile, complete)
                VALUES (\(digest), \(machineID), \(run.commit), \(run.dirty), \(run.commitPosition.map(Int64.init)),
                    \(run.branch), \(run.createdAt.timeIntervalSince1970), \(now), \(run.profile), \(run.complete))
                ON CONFLICT (digest) DO NOTHING
                RETURNING id
                """)
            guard let row = inserted.first else {
                // Another writer's transaction stored it first (and committed: this insert waited).
                let stored = try session.query("SELECT added_at FROM runs WHERE digest = \(digest)")
                storedAt[digest] = try stored.first?.decode(Double.self) ?? now
                continue
            }
            try insertResults(run.results, runID: try row.decode(Int64.self))
            added.insert(digest)
        }

        var outcomes: [StoreAddOutcome] = []
        var reported: Set<String> = []
        for run in runs {
            let first = reported.insert(run.digest).inserted
            if first && added.contains(run.digest) {
                outcomes.append(StoreAddOutcome(digest: run.digest, alreadyAddedAt: nil))
            } else {
                let at = storedAt[run.digest] ?? now
                outcomes.append(StoreAddOutcome(digest: run.digest, alreadyAddedAt: Date(timeIntervalSince1970: at)))
            }
        }
        return outcomes
    }

    /// The machine's row, inserted when new. `DO NOTHING` rather than an update that returns the
    /// row: an update would lock the row until commit, and every writer of that machine would wait.
    private func machineID(_ machine: MachineFingerprint) throws -> Int64 {
        let inserted = try session.query(
            """
            INSERT INTO machines (key, name, host, cpu_model, core_count, kernel, swift_version, build_configuration)
            VALUES (\(machine.key), \(machine.name), \(machine.host), \(machine.cpuModel), \(machine.coreCount),
                \(machine.kernel), \(machine.swiftVersion), \(machine.buildConfiguration))
            ON CONFLICT (key) DO NOTHING
            RETURNING id
            """)
        if let row = inserted.first { return try row.decode(Int64.self) }
        guard let row = try session.query("SELECT id FROM machines WHERE key = \(machine.key)").first else {
            throw StoreError(.failed, location: location, problem: "insert: the machine's row is missing")
        }
        return try row.decode(Int64.self)
    }

    /// Many rows per statement: one round trip per few hundred results rather than per result,
    /// which matters to a runner far from the database.
    private func insertResults(_ results: [HistoryResult], runID: Int64) throws {
        let rowsPerStatement = 500
        for start in stride(from: 0, to: results.count, by: rowsPerStatement) {
            let chunk = results[start..<min(start + rowsPerStatement, results.count)]
            var bindings = PostgresBindings(capacity: chunk.count * 10)
            var tuples: [String] = []
            for result in chunk {
                let first = bindings.count + 1
                tuples.append("(" + (first..<first + 10).map { "$\($0)" }.joined(separator: ", ") + ")")
                bindings.append(runID)
                bindings.append(result.benchmark)
                bindings.append(result.metric.rawValue)
                bindings.append(result.value)
                // NULL for NaN, as SQLite stores it.
                bindings.append(result.lower.flatMap { $0.isNaN ? nil : $0 })
                bindings.append(result.upper.flatMap { $0.isNaN ? nil : $0 })
                bindings.append(Int64(result.sampleCount))
                bindings.append(result.thresholdPercent.flatMap { $0.isNaN ? nil : $0 })
                bindings.append(result.claimVerdict)
                bindings.append(result.executableBuildID)
            }
            try session.query(
                PostgresQuery(
                    unsafeSQL: """
                        INSERT INTO results (run_id, benchmark, metric, value, lower, upper, sample_count,
                            threshold_percent, claim_verdict, build_id)
                        VALUES \(tuples.joined(separator: ", "))
                        """, binds: bindings))
        }
    }

    // MARK: - Reading

    /// Every run, oldest first, read in one snapshot: runs another writer commits meanwhile are
    /// either there with all their results or not there.
    public func runs() throws -> [HistoryRun] {
        do {
            try session.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
            defer { _ = try? session.query("COMMIT") }
            var machines: [Int64: MachineFingerprint] = [:]
            for row in try session.query(
                "SELECT id, name, host, cpu_model, core_count, kernel, swift_version, build_configuration FROM machines"
            ) {
                let (id, name, host, cpuModel, coreCount, kernel, swiftVersion, configuration) = try row.decode(
                    (Int64, String?, String, String, Int, String, String, String).self)
                machines[id] = MachineFingerprint(
                    name: name, host: host, cpuModel: cpuModel, coreCount: coreCount, kernel: kernel,
                    swiftVersion: swiftVersion, buildConfiguration: configuration)
            }
            var results: [Int64: [HistoryResult]] = [:]
            // COLLATE "C": byte order, as SQLite sorts, whatever the database's locale.
            for row in try session.query(
                """
                SELECT run_id, benchmark, metric, value, lower, upper, sample_count, threshold_percent, claim_verdict,
                    build_id
                FROM results ORDER BY run_id, benchmark COLLATE "C", metric COLLATE "C"
                """)
            {
                typealias Columns = (Int64, String, String, Double, Double?, Double?, Int, Double?, String?, String?)
                let (runID, benchmark, metric, value, lower, upper, sampleCount, threshold, verdict, buildID) =
                    try row.decode(Columns.self)
                // A metric a newer perfkit added within the same format: left out, as SQLite's store does.
                guard let metric = HistoryMetric(rawValue: metric) else { continue }
                results[runID, default: []].append(
                    HistoryResult(
                        benchmark: benchmark, metric: metric, value: value, lower: lower, upper: upper,
                        sampleCount: sampleCount, thresholdPercent: threshold, claimVerdict: verdict,
                        executableBuildID: buildID))
            }
            return try session.query(
                """
                SELECT id, digest, machine_id, git_commit, dirty, commit_position, branch, created_at, profile, complete
                FROM runs ORDER BY created_at, id
                """
            ).map { row in
                let (id, digest, machineID, commit, dirty, position, branch, createdAt, profile, complete) =
                    try row.decode((Int64, String, Int64, String?, Bool, Int64?, String?, Double, String?, Bool).self)
                return HistoryRun(
                    digest: digest, machine: machines[machineID] ?? Self.unknownMachine, commit: commit, dirty: dirty,
                    commitPosition: position.map(Int.init), branch: branch,
                    createdAt: Date(timeIntervalSince1970: createdAt), profile: profile, complete: complete,
                    results: results[id] ?? [])
            }
        } catch {
            throw Self.storeError(error, at: location)
        }
    }

    static let unknownMachine = MachineFingerprint(
        name: "unknown", host: "", cpuModel: "", coreCount: 0, kernel: "", swiftVersion: "", buildConfiguration: "")
}
