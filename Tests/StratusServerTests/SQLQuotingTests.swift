import GRDB
import Testing

@testable import StratusServer

/// Identifiers and literals quoted into the statements the SQLite store builds: every quote
/// doubled, whatever follows it, and SQLite reads back what was quoted.
@Suite struct SQLQuotingTests {
    static let names = ["Note", "say \"hi\"", "\"", "\"\u{301}accent", "é\"\"", ""]

    @Test func identifiersDoubleEveryQuoteAndSQLiteReadsThemBack() throws {
        #expect(Array("Note".quotedSQLIdentifier.utf8) == Array("\"Note\"".utf8))
        #expect(Array("say \"hi\"".quotedSQLIdentifier.utf8) == Array("\"say \"\"hi\"\"\"".utf8))
        // A quote and a combining mark make one character; the quote is still doubled.
        #expect(Array("\"\u{301}accent".quotedSQLIdentifier.utf8) == Array("\"\"\"\u{301}accent\"".utf8))

        let database = try DatabaseQueue()
        try database.write { db in
            for (index, name) in Self.names.enumerated() where !name.isEmpty {
                let literal = DatabaseValue(value: name)?.sqlLiteral ?? "NULL"
                let column = "c\(index)\"".quotedSQLIdentifier
                try db.execute(sql: "CREATE TABLE \(name.quotedSQLIdentifier) (\(column) TEXT DEFAULT \(literal))")
                try db.execute(sql: "INSERT INTO \(name.quotedSQLIdentifier) DEFAULT VALUES")
                let stored = try String.fetchOne(db, sql: "SELECT * FROM \(name.quotedSQLIdentifier)")
                #expect(stored.map { Array($0.utf8) } == Array(name.utf8))
            }
            let tables = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'")
            #expect(Set(tables.map { Array($0.utf8) }) == Set(Self.names.filter { !$0.isEmpty }.map { Array($0.utf8) }))
        }
    }

    @Test func literalsDoubleEveryApostrophe() {
        #expect(DatabaseValue(value: "it's")?.sqlLiteral == "'it''s'")
        #expect(DatabaseValue(value: "plain")?.sqlLiteral == "'plain'")
        #expect(DatabaseValue(value: 7)?.sqlLiteral == "7")
    }
}
