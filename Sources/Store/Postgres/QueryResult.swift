import CLibPQ
import FoundationEssentials

/// The rows of one statement, copied out of libpq's result (text format).
public struct QueryResult: Sendable {
    public let columns: [String]
    public let rows: [Row]
    /// Rows affected by INSERT/UPDATE/DELETE (0 for other statements).
    public let affectedRows: Int

    init(_ result: OpaquePointer) {
        let columnCount = Int(PQnfields(result))
        let names = (0..<columnCount).map { String(cString: PQfname(result, Int32($0))) }
        var index: [String: Int] = [:]
        for (i, name) in names.enumerated() where index[name] == nil { index[name] = i }
        let lookup = ColumnIndex(positions: index)
        columns = names
        rows = (0..<Int(PQntuples(result))).map { row in
            Row(values: (0..<columnCount).map { column in
                PQgetisnull(result, Int32(row), Int32(column)) == 1
                    ? nil : String(cString: PQgetvalue(result, Int32(row), Int32(column)))
            }, columns: lookup)
        }
        affectedRows = Int(String(cString: PQcmdTuples(result))) ?? 0
    }

    public struct Row: Sendable {
        public let values: [String?]
        let columns: ColumnIndex

        public subscript(_ position: Int) -> String? { values[position] }
        public subscript(_ name: String) -> String? {
            columns.positions[name].flatMap { values[$0] }
        }
        public func int(_ name: String) -> Int? { self[name].flatMap { Int($0) } }
        public func bool(_ name: String) -> Bool? { self[name].map { $0 == "t" } }
        public func date(_ name: String) -> Date? { self[name].flatMap(PostgresTimestamp.parse) }
    }

    final class ColumnIndex: Sendable {
        let positions: [String: Int]
        init(positions: [String: Int]) { self.positions = positions }
    }
}
