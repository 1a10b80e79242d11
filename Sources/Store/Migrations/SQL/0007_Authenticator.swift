// The role a PostgREST logs in as before switching to the caller's role. Supabase ships it; on a
// vanilla PostgreSQL it is created here without a password or LOGIN, so nothing can use it until an
// operator runs `ALTER ROLE authenticator LOGIN PASSWORD '...'` (README, Production).
extension Migration {
    static let authenticator = Migration(version: 7, name: "authenticator role", clusterRoles: [
        ClusterRole("authenticator", creation: """
            CREATE ROLE authenticator NOLOGIN NOINHERIT;
            GRANT anon, authenticated, service_role TO authenticator;
            """),
    ], sql: #"""
DO $roles$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'authenticator') THEN
        -- Roles belong to the cluster: a migration of another database may create it first. The
        -- loser of that race gets the error only once the winner has committed, grants included,
        -- and must not grant again (this block's catalog snapshot may not see the new role yet:
        -- "role authenticator does not exist" on a fresh cluster under parallel tests).
        BEGIN
            CREATE ROLE authenticator NOLOGIN NOINHERIT;
            GRANT anon, authenticated, service_role TO authenticator;
        EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
        END;
    END IF;
END
$roles$;
"""#)
}
