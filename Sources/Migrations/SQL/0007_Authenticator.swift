// The role a PostgREST logs in as before switching to the caller's role. Supabase ships it; on a
// vanilla PostgreSQL it is created here without a password or LOGIN, so nothing can use it until an
// operator runs `ALTER ROLE authenticator LOGIN PASSWORD '...'` (README, Production).
extension Migration {
    static let authenticator = Migration(version: 7, name: "authenticator role", sql: #"""
DO $roles$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'authenticator') THEN
        BEGIN
            CREATE ROLE authenticator NOLOGIN NOINHERIT;
        EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
        END;
        GRANT anon, authenticated, service_role TO authenticator;
    END IF;
END
$roles$;
"""#)
}
