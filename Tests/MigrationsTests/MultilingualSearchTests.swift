import ArticleStore
import Foundation
import Migrations
import Postgres
import TestSupport
import Testing

/// search_articles in each row's own language (migration 14): inflected and unaccented words in
/// Portuguese, Spanish and English, the exact title phrase first, the vector following a language
/// change, and the backend's security checks on the new function.
@Suite(.tags(.integration), .needsDatabase)
struct MultilingualSearchTests {
    /// Rows written straight into the table (the trigger gives each its vector).
    static func insert(_ db: PostgresConnection, _ rows: [(title: String, summary: String, language: String)]) async throws {
        for (index, row) in rows.enumerated() {
            try await db.query("""
                INSERT INTO public.articles (title, summary, url, url_hash, published_at, language)
                VALUES ($1, $2, $3, $4, now() - $5 * interval '1 minute', $6)
                """, [row.title, row.summary, "https://news.example/\(index)-\(UUID().uuidString)", UUID().uuidString,
                      index, row.language], label: "insert article")
        }
    }

    static func titles(_ db: PostgresConnection, _ query: String, language: String? = nil) async throws -> [String] {
        try await db.query("SELECT title FROM public.search_articles($1, 20, $2, 0)", [query, language],
                           label: "search").rows.compactMap { $0["title"] }
    }

    static let corpus: [(title: String, summary: String, language: String)] = [
        ("Eleições municipais de 2024 em São Paulo", "Os candidatos votaram no domingo", "pt"),
        ("Governo anuncia pensão para idosos", "A medida vale para os municípios", "pt"),
        ("Reforma de las pensiones en el Congreso", "Las ciudades votaron la ley", "es"),
        ("Las ciudades más caras de Europa", "Un informe sobre la vivienda", "es"),
        ("Voters elected a new council", "The cities voted on pensions", "en"),
        ("Markets rally as inflation cools", "Stocks rose on Tuesday", "en"),
    ]

    @Test func inflectedAndUnaccentedWordsMatchInEachLanguage() async throws {
        try await TestDatabase.with { database in
            let db = try await database.migratedConnection()
            try await Self.insert(db, Self.corpus)
            let expectations: [(String, String?, String)] = [
                ("eleição", "pt", "Eleições municipais de 2024 em São Paulo"),   // singular for plural
                ("eleicoes", "pt", "Eleições municipais de 2024 em São Paulo"),  // typed without accents
                ("municipal", nil, "Eleições municipais de 2024 em São Paulo"),  // -al / -ais
                ("pensões", "pt", "Governo anuncia pensão para idosos"),
                ("votar", "pt", "Eleições municipais de 2024 em São Paulo"),     // verb form in the summary
                ("pensión", "es", "Reforma de las pensiones en el Congreso"),
                ("ciudad", "es", "Las ciudades más caras de Europa"),
                ("mas caras", "es", "Las ciudades más caras de Europa"),
                ("votar", "es", "Reforma de las pensiones en el Congreso"),
                ("election", "en", "Voters elected a new council"),
                ("vote", "en", "Voters elected a new council"),
                ("inflation", nil, "Markets rally as inflation cools"),
            ]
            for (query, language, title) in expectations {
                let found = try await Self.titles(db, query, language: language)
                #expect(found.contains(title), "\(query) [\(language ?? "any")] found \(found)")
            }
            // Stop words of the row's language are not indexed as words.
            #expect(try await Self.titles(db, "de", language: "pt").isEmpty)
            #expect(try await Self.titles(db, "las", language: "es").isEmpty)
            // The language filter still filters: the Spanish row is not a Portuguese answer.
            #expect(try await Self.titles(db, "pensao", language: "pt") == ["Governo anuncia pensão para idosos"])
            #expect(try await Self.titles(db, "pensiones", language: "pt").isEmpty)
            await db.close()
        }
    }

    @Test func anExactTitlePhraseRanksFirst() async throws {
        try await TestDatabase.with { database in
            let db = try await database.migratedConnection()
            // Newer rows holding the same stems in their summaries, or the words apart in the title.
            try await Self.insert(db, [
                ("Congreso debate la reforma", "La reforma de las pensiones llega al pleno", "es"),
                ("Pensiones: la reforma que viene", "Reforma de pensiones y del empleo", "es"),
                ("Reforma de las pensiones aprobada", "El Senado vota hoy", "es"),
            ])
            let found = try await Self.titles(db, "reforma de las pensiones", language: "es")
            #expect(found.first == "Reforma de las pensiones aprobada", "\(found)")
            #expect(found.count == 3)
            // Accents folded: the exact title word typed without them still ranks first.
            try await Self.insert(db, [("Eleitoral: novas regras", "A eleição de outubro", "pt"),
                                       ("Eleição no Senado", "Resultado", "pt")])
            #expect(try await Self.titles(db, "eleicao", language: "pt").first == "Eleição no Senado")
            await db.close()
        }
    }

    /// Words Snowball stems apart from their own forms: Portuguese "próximos" (prox: -imos taken for
    /// a verb ending) and "próximo" (proxim), Spanish "tareas" (tar) and "tarea" (tare), "compara"
    /// (comp) and "comparar" (compar). And a verb's own forms rank above the nouns that share its
    /// stem ("separar": "separada" before the newer "separadores").
    @Test func regularFormsSnowballStemsApartMatchAndRankFirst() async throws {
        try await TestDatabase.with { database in
            let db = try await database.migratedConnection()
            try await Self.insert(db, [
                ("Largura dos separadores da lista", "Opções de exibição", "pt"),
                ("Os próximos passos do governo", "Agenda da semana", "pt"),
                ("Lista separada por vírgulas", "Formato de entrada", "pt"),
                ("Cancelar las tareas pendientes", "Planificador", "es"),
                ("El programa compara dos ficheros", "Herramientas", "es"),
            ])
            #expect(try await Self.titles(db, "próximo", language: "pt") == ["Os próximos passos do governo"])
            #expect(try await Self.titles(db, "proximo", language: nil) == ["Os próximos passos do governo"])
            #expect(try await Self.titles(db, "tarea", language: "es") == ["Cancelar las tareas pendientes"])
            #expect(try await Self.titles(db, "comparar", language: "es") == ["El programa compara dos ficheros"])
            #expect(try await Self.titles(db, "separar", language: "pt")
                    == ["Lista separada por vírgulas", "Largura dos separadores da lista"])
            // Stop words still match nothing, whatever forms the rules would give them.
            #expect(try await Self.titles(db, "dos", language: "pt").isEmpty)
            await db.close()
        }
    }

    /// The exact phrase fills a page in other languages only: the page in the asked language still
    /// holds its stem matches after its own exact ones.
    @Test func theExactTierCountsOnlyTheAskedLanguage() async throws {
        try await TestDatabase.with { database in
            let db = try await database.migratedConnection()
            try await Self.insert(db, [("Votar hoy", "a", "es"), ("Votar mañana", "b", "es"), ("Votar ya", "c", "es"),
                                       ("Votar é um dever", "d", "pt"), ("Eleitores votaram cedo", "e", "pt")])
            let found = try await db.query("SELECT title FROM public.search_articles('votar', 2, 'pt', 0)",
                                           label: "search").rows.compactMap { $0["title"] }
            #expect(found == ["Votar é um dever", "Eleitores votaram cedo"])
            await db.close()
        }
    }

    @Test func theVectorFollowsALanguageChange() async throws {
        try await TestDatabase.with { database in
            let db = try await database.migratedConnection()
            // Stored as English (the feed said so); enrichment or `--backfill --kind language` finds Portuguese.
            try await Self.insert(db, [("Eleições municipais em Lisboa", "Os candidatos votaram", "en")])
            #expect(try await Self.titles(db, "eleição", language: "pt").isEmpty)
            try await db.query("UPDATE public.articles SET language = 'pt'", label: "language change")
            #expect(try await Self.titles(db, "eleição", language: "pt") == ["Eleições municipais em Lisboa"])
            let stale = try await db.query("""
                SELECT count(*) AS stale FROM public.articles
                WHERE search_vector_lang IS DISTINCT FROM pulse_ingest.search_document(language, title, summary)
                """, label: "stale vectors").rows.first?.int("stale")
            #expect(stale == 0)
            // A title edit is followed too.
            try await db.query("UPDATE public.articles SET title = 'Pensões em debate'", label: "title change")
            #expect(try await Self.titles(db, "pensão", language: "pt") == ["Pensões em debate"])
            #expect(try await Self.titles(db, "eleição", language: "pt").isEmpty)
            await db.close()
        }
    }

    /// The backend's checks on search_articles (security_invariants.sql 2 and 5, migration 036's
    /// SECURITY DEFINER and statement timeout), fresh and adopted, before and after the switch.
    @Test(arguments: UpstreamParityTests.Path.allCases)
    func upstreamSecurityChecksHold(_ path: UpstreamParityTests.Path) async throws {
        try await TestDatabase.with { database in
            let db = try await UpstreamParityTests().migrated(database, path)
            let readyBefore = try await db.query("SELECT ready FROM pulse_ingest.search_state", label: "state").rows.first?.bool("ready")
            #expect(readyBefore == (path == .fresh), "\(path): a fresh database searches the new way at once")
            if path == .adoption { _ = try await SearchBackfill(connection: db, logger: TestDatabase.logger).run() }
            let function = try await db.query("""
                SELECT p.prosecdef, p.proconfig::text AS config FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
                WHERE n.nspname = 'public' AND p.proname = 'search_articles'
                """, label: "search function").rows
            #expect(function.count == 1)
            #expect(function.first?.bool("prosecdef") == true)
            let config = function.first?["config"] ?? ""
            #expect(config.contains("statement_timeout=3s") && (config.contains("search_path=\"\"") || config.contains("search_path=")),
                    "\(path): \(config)")
            for query in ["", "   ", String(repeating: "a", count: 201), String(repeating: "eleição ", count: 30)] {
                #expect(try await Self.titles(db, query).isEmpty, "\(path): \(query.prefix(20))… must return nothing")
            }
            for (name, sql) in UpstreamParityTests.invariants {
                #expect(try await db.query(sql, label: name).rows.first?[0] == "t", "\(path): invariant \(name)")
            }
            let anon = try await database.connect(serviceRole: false)
            try await anon.useRole("anon")
            _ = try await anon.query("SELECT * FROM public.search_articles('story', 20)", label: "anon search")
            await anon.close()
            await db.close()
        }
    }
}
