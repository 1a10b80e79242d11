import CanonicalURL

/// One step of the schema, embedded in the binary so a deployed binary migrates without the
/// source tree.
public struct Migration: Sendable {
    public let version: Int
    public let name: String
    public let sql: String
    /// When set, a database that already holds what this migration creates (the backend's own
    /// Supabase migrations made it) records the step as adopted instead of running it.
    public let adoption: AdoptionProbe?
    /// Roles (cluster-wide) this migration creates when missing; `Migrator` creates them first,
    /// each in a short transaction of its own (see `Migrator.createClusterRoles`).
    public let clusterRoles: [ClusterRole]

    public init(version: Int, name: String, adoption: AdoptionProbe? = nil, clusterRoles: [ClusterRole] = [], sql: String) {
        self.version = version
        self.name = name
        self.sql = sql
        self.adoption = adoption
        self.clusterRoles = clusterRoles
    }

    /// SHA-256 of the SQL text, recorded in the history to notice edited migrations.
    public var checksum: String { sha256Hex(sql) }

    /// Every migration this binary knows, in order.
    public static let all: [Migration] = [.baseSchema, .baseFunctions, .ingestAdditions, .scheduling, .languageTracking,
                                          .upstreamParity, .authenticator, .searchLanguageType, .claimIndex,
                                          .sourceLanguageDetection, .insertArticlesFunction, .webSubSubscriptions,
                                          .webSubCallbackTokens, .multilingualSearch, .fleetGauges]
}

/// A role a migration needs, and the statements that create it (ours, never input).
public struct ClusterRole: Sendable, Equatable {
    public let name: String
    public let creation: String

    public init(_ name: String, creation: String) {
        self.name = name
        self.creation = creation
    }
}

/// What must exist for a migration to count as already done by someone else.
public enum AdoptionProbe: Sendable, Equatable {
    /// Tables or views in schema `public`.
    case relations([String])
    /// Functions in schema `public` (by name).
    case functions([String])
    /// A query answering one boolean: true when the database already has this step's result.
    case condition(String)

    var names: [String] {
        switch self {
        case .relations(let names), .functions(let names): names
        case .condition: []
        }
    }
}
